#include "engine/script/loader_message.h"

#include "engine/script/probe_messages.h"

namespace advisor {
namespace {

// Far above the batches of any command's steps: a bound on what a broken probe can make advisor
// hold.
constexpr std::size_t kMaxBatches = 1'000'000;

std::vector<TimeNs> Durations(const JsonField& list) {
  std::vector<TimeNs> durations;
  for (const JsonField& ns : list.Elements(0, kMaxBatches)) durations.push_back(ns.Integer(0));
  return durations;
}

}  // namespace

std::optional<LoaderRecords> ReadLoaderRecords(const nlohmann::json& reply) {
  const JsonField message(reply, ProbeMessageName(reply));
  const std::optional<JsonField> loader = message.OptionalNonNull("loader");
  if (!loader) return std::nullopt;
  LoaderRecords records;
  const JsonField workers = loader->Required("workers");
  records.workers = static_cast<int>(workers.Integer(0, kMaxProbeCount));
  records.persistent = loader->Required("persistent").Bool();
  // DataLoader refuses persistent workers without workers.
  if (records.persistent && records.workers == 0) {
    workers.Fail("must be at least 1 with persistent workers");
  }
  if (const JsonField batches = loader->Required("epoch_batches"); !batches.IsNull()) {
    records.epoch_batches = static_cast<int>(batches.Integer(0, kMaxProbeCount));
  }
  records.starts = Durations(loader->Required("starts"));
  records.waits = Durations(loader->Required("waits"));
  return records;
}

}  // namespace advisor
