#include "engine/script/loader_message.h"

#include "engine/script/message_fields.h"

namespace advisor {
namespace {

using namespace message_fields;
using nlohmann::json;

// Far above the batches of any command's steps: a bound on what a broken probe can make advisor
// hold.
constexpr std::size_t kMaxBatches = 1'000'000;

std::vector<TimeNs> Durations(const json& value, const char* what) {
  std::vector<TimeNs> durations;
  for (const json& ns : Array(value, kMaxBatches, what)) durations.push_back(Count(ns, what));
  return durations;
}

}  // namespace

std::optional<LoaderRecords> ReadLoaderRecords(const json& reply) {
  const auto it = reply.find("loader");
  if (it == reply.end() || it->is_null()) return std::nullopt;
  const json& loader = *it;
  if (!loader.is_object()) throw ProbeMessageError("loader: not an object");
  LoaderRecords records;
  records.workers = SmallCount(Field(loader, "workers"), "loader workers");
  records.persistent = Flag(Field(loader, "persistent"), "loader persistent");
  // DataLoader refuses persistent workers without workers.
  if (records.persistent && records.workers == 0) {
    throw ProbeMessageError("loader: persistent workers without workers");
  }
  if (const json& batches = Field(loader, "epoch_batches"); !batches.is_null()) {
    records.epoch_batches = SmallCount(batches, "loader epoch_batches");
  }
  records.starts = Durations(Field(loader, "starts"), "loader starts");
  records.waits = Durations(Field(loader, "waits"), "loader waits");
  return records;
}

}  // namespace advisor
