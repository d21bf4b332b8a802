// The training loop's DataLoader as the report gives it (DataWait::loader, facts.data.loader):
// what each command's reply said of it (loader_message), pooled over the windows. An epoch's
// start is rare in one window: with short epochs, some of a run's windows hold one.
#pragma once

#include <optional>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/script/loader_message.h"

namespace advisor {

// One command's records and the steps it measured.
struct LoaderWindow {
  LoaderRecords records;
  int steps = 0;
};

// The settings of the last window's loader; its batches per step and the restarts of every
// window. nullopt without a window.
std::optional<LoaderEpochs> SummariseLoaderEpochs(const std::vector<LoaderWindow>& windows);

}  // namespace advisor
