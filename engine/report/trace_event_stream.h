// Writes a Chrome-trace JSON object event by event, so a window of a million events never sits
// in memory as one JSON document.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

namespace advisor {

class TraceEventStream {
 public:
  explicit TraceEventStream(std::ostream& out);
  void Add(const nlohmann::json& event);
  // Closes the event array; other_data lands under "otherData", which viewers ignore.
  void Finish(const nlohmann::json& other_data);

 private:
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace advisor
