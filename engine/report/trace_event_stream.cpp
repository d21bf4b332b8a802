#include "engine/report/trace_event_stream.h"

namespace advisor {
namespace {

// Replace, not throw, on invalid UTF-8 in names that came from the model or a kernel.
std::string Dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

TraceEventStream::TraceEventStream(std::ostream& out, const nlohmann::json& head) : out_(out) {
  out_ << "{";
  for (const auto& [key, value] : head.items()) {
    if (!value.is_null()) out_ << Dump(key) << ":" << Dump(value) << ",\n";
  }
  out_ << "\"traceEvents\":[\n";
}

void TraceEventStream::Add(const nlohmann::json& event) {
  if (!first_) out_ << ",\n";
  first_ = false;
  out_ << Dump(event);
}

void TraceEventStream::Finish(const nlohmann::json& tail) {
  out_ << "\n]";
  for (const auto& [key, value] : tail.items()) {
    if (!value.is_null()) out_ << ",\n" << Dump(key) << ":" << Dump(value);
  }
  out_ << "}\n";
}

}  // namespace advisor
