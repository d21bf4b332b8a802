// Which module instances each kernel of a torch.compile'd graph computes, as the probe recorded
// while inductor compiled (probes/python/site/advisor_probe/provenance.py; issue #29). Read like
// every untrusted input: field by field and bounded, one JsonInputError line naming the first
// problem.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/json_input/json_field.h"

namespace advisor {

// The most graphs, kernels (or extern calls) of a graph, and instances of a kernel the probe
// sends; past them a table is a broken probe's.
inline constexpr std::size_t kMaxCompiledGraphs = 64;
inline constexpr std::size_t kMaxCompiledKernels = 4096;
inline constexpr std::size_t kMaxKernelInstances = 16;
inline constexpr std::size_t kMaxKernelNameBytes = 256;
inline constexpr std::size_t kMaxInstancePathBytes = 1024;

// One instance's part of a kernel: the share of the kernel's FX nodes that belong to it (0 to 1).
struct KernelShare {
  std::string instance;  // "blocks.0.attn", relative to the compiled module
  double share = 0;
};

// What named a kernel's FX nodes: the Source Nodes comment inductor writes before it, the origins
// of the IR node an extern call was lowered from (where inductor writes no comment: an in-place
// scatter's or index_put_'s fallback), or nothing (an extern call the table names no node of).
enum class KernelNodesFrom { kComment, kIrOrigins, kNone };

// A kernel inductor generated ("triton_red_fused_native_layer_norm_1", "cpp_fused_gelu_0"), or an
// extern kernel the graph calls ("aten::mm"); its shares sum to at most 1, the rest unattributed.
struct CompiledKernelSource {
  std::string name;
  std::vector<KernelShare> shares;
  KernelNodesFrom nodes_from = KernelNodesFrom::kComment;
};

struct CompiledGraphSources {
  bool backward = false;
  std::vector<CompiledKernelSource> kernels;       // by name
  std::vector<CompiledKernelSource> extern_calls;  // in the order the graph calls them
};

// The probe's "graphs" array: [{"direction": "forward" | "backward", "kernels": [{"name",
// "nodes", "instances": [{"path", "nodes"}]}], "extern_calls": [{"op", "nodes_from", "nodes",
// "instances"}]}]; "nodes" from 0 (an extern call none of whose nodes is named: "nodes_from"
// "none"); "nodes_from" ("comment", "ir_origins", "none") absent in the tables probes wrote
// before it (a comment named the nodes where there are any).
std::vector<CompiledGraphSources> ReadCompiledProvenance(const JsonField& graphs);

// The file scripts/record_compiled_provenance.py writes ({"graphs": [...]}, its other fields
// ignored), at most 64 MiB.
std::vector<CompiledGraphSources> ReadCompiledProvenanceFile(const std::string& path);

}  // namespace advisor
