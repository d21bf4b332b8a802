// What torch's compiler did in a script that compiled its model (torch.compile), as the script
// probe read it in the user's process (probes/python/site/advisor_probe/compile_report.py).
// RunReport::compile (engine/model/run_report.h); report.json's `compile` (docs/report-schema.md).
#pragma once

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
};

}  // namespace advisor
