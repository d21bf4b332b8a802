// What a reply to a timing or recording command says of the training loop's DataLoader over the
// command's measured steps ("loader", docs/script-mode.md "The protocol";
// probes/python/site/advisor_probe/loader_epochs.py): its settings, each restart of it timed to
// its first batch and each other batch's wait. Read like every probe message: checked field by
// field, ProbeMessageError naming the first problem.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

#include "engine/script/timeline_codec.h"  // ProbeMessageError
#include "engine/timeline/timeline.h"

namespace advisor {

struct LoaderRecords {
  int workers = 0;                   // num_workers
  bool persistent = false;           // persistent_workers
  std::optional<int> epoch_batches;  // len(loader); absent for an iterable Dataset
  // Each restart in a measured step: the previous epoch's end (its workers shut down), iter()
  // (new ones started) and the wait for the first batch.
  std::vector<TimeNs> starts;
  std::vector<TimeNs> waits;  // each other batch's wait in a measured step
};

// The reply's "loader"; nullopt where it is absent or null (no backward pass has followed a
// DataLoader's batch yet).
std::optional<LoaderRecords> ReadLoaderRecords(const nlohmann::json& reply);

}  // namespace advisor
