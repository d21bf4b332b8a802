// Writes a Chrome-trace JSON object event by event, so a window of a million events never sits
// in memory as one JSON document.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

namespace advisor {

class TraceEventStream {
 public:
  // `head`'s members are written before "traceEvents" (Kineto writes schemaVersion,
  // deviceProperties and distributedInfo there); a null member is left out.
  TraceEventStream(std::ostream& out, const nlohmann::json& head);
  void Add(const nlohmann::json& event);
  // Closes the event array and writes `tail`'s members after it; a null member is left out.
  void Finish(const nlohmann::json& tail);

 private:
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace advisor
