#include "engine/analysis/compiled_provenance.h"

#include <cstdint>
#include <optional>

#include "engine/json_input/json_document.h"

namespace advisor {
namespace {

constexpr std::int64_t kMaxNodes = std::int64_t{1} << 30;
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{64} << 20;

// An extern call's "nodes_from"; a kernel's comment named its nodes (or none were named).
KernelNodesFrom ReadNodesFrom(const JsonField& entry, std::int64_t nodes) {
  const KernelNodesFrom named = nodes > 0 ? KernelNodesFrom::kComment : KernelNodesFrom::kNone;
  const std::optional<JsonField> field = entry.Optional("nodes_from");
  if (!field) return named;
  const std::string from = field->Choice({"comment", "ir_origins", "none"});
  if ((from == "none") != (nodes == 0)) {
    field->Fail("says '" + from + "' of " + std::to_string(nodes) + " nodes");
  }
  return from == "ir_origins" ? KernelNodesFrom::kIrOrigins : named;
}

CompiledKernelSource ReadKernel(const JsonField& entry, const char* name_key) {
  CompiledKernelSource kernel;
  kernel.name = entry.Required(name_key).Text(kMaxKernelNameBytes);
  if (kernel.name.empty()) entry.Required(name_key).Refuse("a non-empty string");
  // 0 for an extern call none of whose nodes is named: kept for its place in the order.
  const std::int64_t node_count = entry.Required("nodes").Integer(0, kMaxNodes);
  kernel.nodes_from = ReadNodesFrom(entry, node_count);
  const auto nodes = static_cast<double>(node_count);
  double held = 0;
  const JsonField instances = entry.Required("instances");
  for (const JsonField& instance : instances.Elements(0, kMaxKernelInstances)) {
    const double own = instance.Required("nodes").Number(NumberRange::Above(0));
    held += own;
    // The probe splits a node made into several post-grad nodes evenly, so an instance holds a
    // fraction of a node, never more nodes than the kernel has.
    if (held > nodes * (1 + 1e-6)) {
      instance.Required("nodes").Fail("makes the instances hold more than the kernel's " +
                                      std::to_string(static_cast<std::int64_t>(nodes)) + " nodes");
    }
    kernel.shares.push_back({instance.Required("path").Text(kMaxInstancePathBytes), own / nodes});
  }
  return kernel;
}

}  // namespace

std::vector<CompiledGraphSources> ReadCompiledProvenance(const JsonField& graphs) {
  std::vector<CompiledGraphSources> read;
  for (const JsonField& graph : graphs.Elements(0, kMaxCompiledGraphs)) {
    CompiledGraphSources sources;
    sources.backward = graph.Required("direction").Choice({"forward", "backward"}) == "backward";
    const JsonField kernels = graph.Required("kernels");
    for (const JsonField& kernel : kernels.Elements(0, kMaxCompiledKernels)) {
      sources.kernels.push_back(ReadKernel(kernel, "name"));
    }
    const JsonField calls = graph.Required("extern_calls");
    for (const JsonField& call : calls.Elements(0, kMaxCompiledKernels)) {
      sources.extern_calls.push_back(ReadKernel(call, "op"));
    }
    read.push_back(std::move(sources));
  }
  return read;
}

std::vector<CompiledGraphSources> ReadCompiledProvenanceFile(const std::string& path) {
  const nlohmann::json document = ParseJsonDocument(ReadJsonFile(path, kMaxFileBytes), path);
  const JsonField top(document, path);
  return ReadCompiledProvenance(top.Required("graphs"));
}

}  // namespace advisor
