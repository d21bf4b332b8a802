#include "engine/analysis/compiled_provenance.h"

#include <cstdint>

#include "engine/json_input/json_document.h"

namespace advisor {
namespace {

constexpr std::int64_t kMaxNodes = std::int64_t{1} << 30;
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{64} << 20;

CompiledKernelSource ReadKernel(const JsonField& entry, const char* name_key) {
  CompiledKernelSource kernel;
  kernel.name = entry.Required(name_key).Text(kMaxKernelNameBytes);
  if (kernel.name.empty()) entry.Required(name_key).Refuse("a non-empty string");
  // 0 for an extern call the output code names no nodes of: kept for its place in the order.
  const auto nodes = static_cast<double>(entry.Required("nodes").Integer(0, kMaxNodes));
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
