// What a reply to a timing or recording command says of torch's compiler so far ("compile",
// docs/script-mode.md "The protocol"; probes/python/site/advisor_probe/compile_report.py): its
// graphs, graph breaks, recompilations, recompile limits hit, compile seconds and CUDA graphs.
// Read like every probe message: checked field by field and bounded, ProbeMessageError naming the
// first problem.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

#include "engine/analysis/compiled_provenance.h"
#include "engine/model/compile_report.h"
#include "engine/script/timeline_codec.h"  // ProbeMessageError

namespace advisor {

// The most entries of each list, and the longest reason, guard or function name, the probe
// sends (it keeps to them): past them a message is a broken probe's.
inline constexpr std::size_t kMaxCompileEntries = 64;
inline constexpr std::size_t kMaxCompileTextBytes = 400;

// The reply's "compile"; nullopt where it is absent or null (torch has compiled nothing).
std::optional<CompileReport> ReadCompileReport(const nlohmann::json& reply);

// The baseline window's reply's "provenance": the kernel tables of the graphs inductor compiled
// for the script (advisor_probe/provenance.py; engine/analysis/compiled_provenance.h's bounds);
// nullopt where it is absent or null (nothing compiled by inductor, torch 1.x).
std::optional<std::vector<CompiledGraphSources>> ReadProvenance(const nlohmann::json& reply);

}  // namespace advisor
