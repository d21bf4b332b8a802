#include "engine/report/compiled_kernels_section.h"

#include <algorithm>
#include <vector>

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

std::string WorkNoun(const CompiledKernelTime& time) {
  return time.device ? "GPU kernels" : "host ops";
}

// Where the compiled time no instance got went, each part with its share of the compiled time:
// with the attributed share they add up to all of it. Empty where everything was attributed.
std::string Unattributed(const CompiledKernelTime& time) {
  std::vector<std::string> parts;
  const auto share = [&](std::int64_t ns) { return FormatShare(ShareOf(ns, time.compiled_ns)); };
  if (time.unnamed > 0) {
    parts.push_back(share(time.unnamed_ns) + " in " + WorkNoun(time) + " no table names (" +
                    std::to_string(time.unnamed) + ")");
  }
  if (time.nodeless > 0) {
    parts.push_back(share(time.nodeless_ns) +
                    " in extern calls whose table entry names none of their nodes (" +
                    std::to_string(time.nodeless) + ")");
  }
  // The attributed time is rounded once from its parts: a nanosecond either way is no part.
  if (time.unheld_ns() > 1) {
    parts.push_back(share(time.unheld_ns()) + " in kernels' nodes that no instance holds");
  }
  std::string joined;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    joined += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return parts.empty() ? "" : "unattributed: " + joined;
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
          {"nodeless_kernels", time.nodeless},
          {"compiled_ms", MsPerStep(time, time.compiled_ns)},
          {"attributed_ms", MsPerStep(time, time.attributed_ns)},
          {"attributed_share", ShareOf(time.attributed_ns, time.compiled_ns)},
          {"shared_ms", MsPerStep(time, time.shared_ns)},
          {"origins_ms", MsPerStep(time, time.origins_ns)},
          {"unnamed_ms", MsPerStep(time, time.unnamed_ns)},
          {"nodeless_ms", MsPerStep(time, time.nodeless_ns)},
          {"unheld_ms", MsPerStep(time, time.unheld_ns())},
          {"backward_ms", MsPerStep(time, time.backward_ns)},
          {"backward_attributed_ms", MsPerStep(time, time.backward_attributed_ns)},
          {"instances", instances}};
}

std::string CompiledKernelsSentence(const CompiledKernelTime& time) {
  std::string sentence =
      "The compiled graphs' " + std::to_string(time.calls) + " calls ran " +
      std::to_string(time.pieces) + " " + WorkNoun(time) + " for " +
      FormatNumber(MsPerStep(time, time.compiled_ns)) + " ms per step; " +
      FormatShare(ShareOf(time.attributed_ns, time.compiled_ns)) +
      " of that time was attributed to module instances from inductor's kernel provenance (" +
      FormatShare(ShareOf(time.shared_ns, time.compiled_ns)) +
      " from kernels fused across instances, split by their nodes";
  if (time.origins_ns > 0) {
    sentence += "; " + FormatShare(ShareOf(time.origins_ns, time.compiled_ns)) +
                " from extern calls named by their IR node's origins, which inductor's output "
                "code gives no Source Nodes comment";
  }
  sentence += ")";
  if (time.backward_ns > 0) {
    sentence += ", " + FormatShare(ShareOf(time.backward_attributed_ns, time.backward_ns)) +
                " of the backward graphs' " + FormatNumber(MsPerStep(time, time.backward_ns)) +
                " ms";
  }
  const std::string rest = Unattributed(time);
  return sentence + (rest.empty() ? "" : "; " + rest) + ".";
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
  const std::string rest = Unattributed(time);
  return line + (rest.empty() ? "" : "; " + rest);
}

Table CompiledKernelsTable(const CompiledKernelTime& time) {
  Table table;
  table.columns = {"instance", "forward (ms/step)", "backward (ms/step)",
                   "of which shared (ms/step)", "share of compiled time"};
  table.numeric = {false, true, true, true, true};
  const std::size_t shown = std::min(time.instances.size(), kCompiledInstancesShown);
  for (std::size_t i = 0; i < shown; ++i) {
    const CompiledInstanceTime& instance = time.instances[i];
    table.rows.push_back({{{instance.instance, Style::kCode},
                           {FormatNumber(MsPerStep(time, instance.forward_ns))},
                           {FormatNumber(MsPerStep(time, instance.backward_ns))},
                           {FormatNumber(MsPerStep(time, instance.shared_ns))},
                           {FormatShare(ShareOf(instance.total_ns(), time.compiled_ns))}}});
  }
  return table;
}

std::string CompiledInstancesLeftOut(const CompiledKernelTime& time) {
  if (time.instances.size() <= kCompiledInstancesShown) return "";
  // Most time first: the first left out is the largest of them.
  const CompiledInstanceTime& largest = time.instances[kCompiledInstancesShown];
  return std::to_string(time.instances.size() - kCompiledInstancesShown) +
         " more instances, each " + FormatShare(ShareOf(largest.total_ns(), time.compiled_ns)) +
         " of the compiled time or less, are in report.json (compiled_kernels.instances).";
}

}  // namespace advisor
