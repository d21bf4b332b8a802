#include "engine/report/compiled_kernels_section.h"

#include <algorithm>

#include "engine/report/format.h"

namespace advisor {
namespace {

using Style = TableCell::Style;

// Nanoseconds over the window as milliseconds per step.
double MsPerStep(const CompiledKernelTime& time, std::int64_t ns) {
  return static_cast<double>(ns) / 1e6 / std::max(time.steps, 1);
}

double ShareOf(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

nlohmann::json CompiledKernelsJson(const CompiledKernelTime& time) {
  nlohmann::json instances = nlohmann::json::array();
  for (const CompiledInstanceTime& instance : time.instances) {
    instances.push_back({{"path", instance.instance},
                         {"forward_ms", MsPerStep(time, instance.forward_ns)},
                         {"backward_ms", MsPerStep(time, instance.backward_ns)},
                         {"shared_ms", MsPerStep(time, instance.shared_ns)},
                         {"share", ShareOf(instance.total_ns(), time.compiled_ns)}});
  }
  return {{"source", "inductor kernel provenance"},
          {"work", time.device ? "gpu_kernels" : "host_ops"},
          {"steps", time.steps},
          {"calls", time.calls},
          {"kernels", time.pieces},
          {"unnamed_kernels", time.unnamed},
          {"compiled_ms", MsPerStep(time, time.compiled_ns)},
          {"attributed_ms", MsPerStep(time, time.attributed_ns)},
          {"attributed_share", ShareOf(time.attributed_ns, time.compiled_ns)},
          {"shared_ms", MsPerStep(time, time.shared_ns)},
          {"backward_ms", MsPerStep(time, time.backward_ns)},
          {"backward_attributed_ms", MsPerStep(time, time.backward_attributed_ns)},
          {"instances", instances}};
}

std::string CompiledKernelsSentence(const CompiledKernelTime& time) {
  const std::string work = time.device ? "GPU kernels" : "host ops";
  std::string sentence =
      "The compiled graphs' " + std::to_string(time.calls) + " calls ran " +
      std::to_string(time.pieces) + " " + work + " for " +
      FormatNumber(MsPerStep(time, time.compiled_ns)) + " ms per step; " +
      FormatShare(ShareOf(time.attributed_ns, time.compiled_ns)) +
      " of that time was attributed to module instances from inductor's kernel provenance (" +
      FormatShare(ShareOf(time.shared_ns, time.compiled_ns)) +
      " from kernels fused across instances, split by their nodes)";
  if (time.backward_ns > 0) {
    sentence += ", " + FormatShare(ShareOf(time.backward_attributed_ns, time.backward_ns)) +
                " of the backward graphs' " + FormatNumber(MsPerStep(time, time.backward_ns)) +
                " ms";
  }
  if (time.unnamed > 0) {
    sentence += "; " + std::to_string(time.unnamed) + " of the " + work +
                " are in no table (kernels the provenance does not name)";
  }
  return sentence + ".";
}

std::string CompiledKernelsQuality(const CompiledKernelTime& time, const std::string& source) {
  std::string line = FormatShare(ShareOf(time.attributed_ns, time.compiled_ns)) +
                     " of the compiled graphs' " + (time.device ? "GPU kernel" : "host op") +
                     " time (" + FormatNumber(MsPerStep(time, time.compiled_ns)) +
                     " ms per step) was attributed to module instances from inductor's kernel "
                     "provenance (" +
                     source + ")";
  if (time.backward_ns > 0) {
    line += ", " + FormatShare(ShareOf(time.backward_attributed_ns, time.backward_ns)) +
            " of the backward graphs'";
  }
  return line;
}

Table CompiledKernelsTable(const CompiledKernelTime& time) {
  Table table;
  table.columns = {"instance", "forward (ms/step)", "backward (ms/step)",
                   "of which shared (ms/step)", "share of compiled time"};
  table.numeric = {false, true, true, true, true};
  for (const CompiledInstanceTime& instance : time.instances) {
    table.rows.push_back({{{instance.instance, Style::kCode},
                           {FormatNumber(MsPerStep(time, instance.forward_ns))},
                           {FormatNumber(MsPerStep(time, instance.backward_ns))},
                           {FormatNumber(MsPerStep(time, instance.shared_ns))},
                           {FormatShare(ShareOf(instance.total_ns(), time.compiled_ns))}}});
  }
  return table;
}

}  // namespace advisor
