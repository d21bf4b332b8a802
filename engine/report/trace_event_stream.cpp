#include "engine/report/trace_event_stream.h"

namespace advisor {

TraceEventStream::TraceEventStream(std::ostream& out) : out_(out) {
  out_ << "{\"traceEvents\":[\n";
}

void TraceEventStream::Add(const nlohmann::json& event) {
  if (!first_) out_ << ",\n";
  first_ = false;
  // Replace, not throw, on invalid UTF-8 in names that came from the model or a kernel.
  out_ << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void TraceEventStream::Finish(const nlohmann::json& other_data) {
  out_ << "\n],\"displayTimeUnit\":\"ms\",\"otherData\":"
       << other_data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "}\n";
}

}  // namespace advisor
