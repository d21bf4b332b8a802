// Every finding's line in the user's code, not only the hot spot's: the rules name a module and
// an op (often a backward node, such as GatherBackward0), and the front door knows where the
// forward op that made it sits in the model's source.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/window/labelled_window.h"

namespace advisor {

// The first line outside torch's package of the forward op `op` (e.g. "aten::gather") in the
// module at `path`, or where `op` is "" of the call of that module; nullopt when unknown.
using SourceLocator =
    std::function<std::optional<SourceLocation>(const std::string& path, const std::string& op)>;

// Sets the source of every finding that names a module or an op: the hot spot's own source where
// the finding is about the hot spot's module and op (every door has it), else `locate`'s for the
// finding's forward op (a backward node's by sequence number in `windows`); `locate` may be empty
// (a door that cannot look sources up after the bisection).
void LocateFindings(std::vector<Finding>& findings, const std::optional<Hotspot>& hotspot,
                    const std::vector<LabelledWindow>& windows, const SourceLocator& locate);

}  // namespace advisor
