// What torch's compiler did in a script that compiled its model (torch.compile), as the script
// probe read it in the user's process (probes/python/site/advisor_probe/compile_report.py).
// RunReport::compile (engine/model/run_report.h); report.json's `compile` (docs/report-schema.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace advisor {

// A graph break: dynamo stopped its graph at this line of the user's code, ran it eagerly and
// started another graph after it.
struct GraphBreak {
  std::string reason;  // dynamo's, its first line ("Unsupported Tensor.item() call ...")
  std::string file;    // the user's file and line where the graph broke
  int line = 0;
  int count = 0;  // times dynamo met it while compiling (each compilation of the frame), not steps
  std::string text;  // that line's code, as the probe read it; "" where it could not
};

// A function compiled again because a guard of its earlier compilation failed.
struct Recompile {
  std::string function;  // the compiled frame's code: its name, file and first line
  std::string file;
  int line = 0;
  std::string guard;  // the failed guard ("tensor 'x' size mismatch at index 0. expected 4, ...")
  int count = 0;      // recompilations of the function on that guard's text
};

// A function that reached the recompile limit: dynamo runs it eagerly from then on.
struct RecompileLimitHit {
  std::string function;
  std::string file;
  int line = 0;
  int limit = 0;  // torch's limit (config.recompile_limit); 0 where torch did not say
};

// A module instance that a window compiled as a region of its own and dynamo could not compile
// alone: it ran eagerly in that window.
struct EagerRegion {
  std::string path;
  std::string reason;  // dynamo's exception, its first line
};

// How advisor measured inside a compiled model: for each level's window (and the hot spot's
// source window) it ran the model's own module eagerly down to the level and compiled each
// instance hanging off that path alone, with the script's torch.compile options
// (probes/python/site/advisor_probe/regional.py). Those compilations are advisor's: they are not
// in CompileReport's counts.
struct RegionalCompile {
  std::vector<std::string> levels;  // the modules whose children were measured ("" the model)
  int compilations = 0;             // frames compiled for the regions
  double compile_s = 0;             // their seconds, in the windows' warm-up steps
  int in_measured_steps = 0;        // of those, compiled after a warm-up (inside measured steps)
  std::vector<EagerRegion> eager;
};

// A compiled function's CUDA graph, captured by inductor's cudagraph trees
// (mode="reduce-overhead"): once normally; again in later steps where what it was captured with
// no longer holds (an input's address, a shape), each capture a synchronisation and a recording
// instead of a replay.
struct CudaGraphFunction {
  std::string function;  // inductor's name for the graph ("partition_0")
  std::string mode;      // "forward", "backward" or "inference"
  int recordings = 0;
  int first_step = 0;           // the script's step of its first capture (0 the first step)
  int later_steps = 0;          // later steps it was captured again in (advisor's windows left out)
  int rerecordings = 0;         // captures again that torch said were for a failed check
  std::string rerecord_reason;  // torch's reason for the last of them, "" where none
};

// A graph inductor runs without CUDA graphs, and why.
struct CudaGraphSkip {
  std::string reason;  // torch's, after "skipping cudagraphs due to " ("mutated inputs ...")
  int count = 0;       // skips with that reason
};

// The script's CUDA graphs: present where torch captured or skipped one.
struct CudaGraphs {
  int recordings = 0;  // captures in all, those of functions past the list's cap included
  int step = 0;        // the script's step in progress when the probe reported
  std::vector<CudaGraphFunction> functions;
  std::vector<CudaGraphSkip> skipped;
};

struct CompileReport {
  int graphs = 0;        // graphs dynamo compiled (its counter of unique graphs)
  int compilations = 0;  // frames compiled, recompilations included (of torch's last 64)
  std::vector<GraphBreak> graph_breaks;
  std::vector<Recompile> recompiles;
  std::vector<RecompileLimitHit> recompile_limit_hits;
  // The compiler's seconds as torch measured them: each frame's compilation (dynamo's tracing
  // and the backend's compile of its forward graph) and each backward graph's compile, over the
  // compilations torch's metrics hold (its last 64).
  double compile_s = 0;
  std::optional<RegionalCompile> regional;  // where a bisection measured inside a compiled model
  std::optional<CudaGraphs> cuda_graphs;    // where inductor captured or skipped a CUDA graph
};

}  // namespace advisor
