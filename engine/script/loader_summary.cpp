#include "engine/script/loader_summary.h"

#include <algorithm>

#include "engine/util/median.h"

namespace advisor {
namespace {

constexpr double kNsPerMs = 1e6;

std::vector<double> Millis(const std::vector<TimeNs>& durations) {
  std::vector<double> ms;
  ms.reserve(durations.size());
  for (TimeNs ns : durations) ms.push_back(ns / kNsPerMs);
  return ms;
}

}  // namespace

std::optional<LoaderEpochs> SummariseLoaderEpochs(const std::vector<LoaderWindow>& windows) {
  if (windows.empty()) return std::nullopt;
  const LoaderRecords& last = windows.back().records;
  LoaderEpochs epochs;
  epochs.workers = last.workers;
  epochs.persistent = last.persistent;
  epochs.epoch_batches = last.epoch_batches;
  std::vector<TimeNs> starts;
  std::vector<TimeNs> waits;
  long long steps = 0;
  for (const LoaderWindow& window : windows) {
    starts.insert(starts.end(), window.records.starts.begin(), window.records.starts.end());
    waits.insert(waits.end(), window.records.waits.begin(), window.records.waits.end());
    steps += window.steps;
  }
  if (steps > 0) {
    epochs.batches_per_step = static_cast<double>(starts.size() + waits.size()) / steps;
  }
  epochs.epochs_seen = static_cast<int>(starts.size());
  if (!starts.empty()) {
    // Medians: a restart or a wait that the machine's other work lengthened stays one sample.
    // Without a later batch measured, the steady wait is taken for none.
    epochs.epoch_start_ms = std::max(0.0, Median(Millis(starts)) - Median(Millis(waits)));
  }
  return epochs;
}

}  // namespace advisor
