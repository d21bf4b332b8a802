// The report's compiled_kernels section (RunReport::compiled_kernels: a compiled model's kernel
// time by module instance, from inductor's kernel provenance) in each writer's form: report.json's
// object, the sentence and table report.md shows, and the data_quality line of how much of the
// compiled time was attributed.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/model/compiled_kernels.h"
#include "engine/report/report_tables.h"

namespace advisor {

// report.json's `compiled_kernels` (docs/report-schema.md#compiled_kernels).
nlohmann::json CompiledKernelsJson(const CompiledKernelTime& time);

// "The compiled graphs' 4 calls ran 143 GPU kernels for 61.2 ms per step; 94.1% of that time was
// attributed to module instances from inductor's kernel provenance (12.0% from kernels fused
// across instances, split by their nodes), 92.3% of the backward graphs' 30.10 ms; unattributed:
// 5.0% in GPU kernels no table names (3) and 0.9% in kernels' nodes that no instance holds."
std::string CompiledKernelsSentence(const CompiledKernelTime& time);

// data_quality's line of how much of the compiled time was attributed, and where the rest went:
// "97.4% of the compiled graphs' host op time (0.091 ms per step) was attributed to module
// instances from inductor's kernel provenance (SOURCE), 93.0% of the backward graphs';
// unattributed: 2.6% in kernels' nodes that no instance holds".
std::string CompiledKernelsQuality(const CompiledKernelTime& time, const std::string& source);

// The instances a report's table shows: a compiled transformer has a row for every Linear of every
// block (about a hundred for a ViT-B); report.json keeps them all.
inline constexpr std::size_t kCompiledInstancesShown = 20;

// One row per instance, most time first, the first kCompiledInstancesShown: forward, backward,
// shared ms per step, share of the compiled time.
Table CompiledKernelsTable(const CompiledKernelTime& time);

// Under the table, where it left instances out: "81 more instances, each 0.4% of the compiled
// time or less, are in report.json (compiled_kernels.instances)."; else "".
std::string CompiledInstancesLeftOut(const CompiledKernelTime& time);

}  // namespace advisor
