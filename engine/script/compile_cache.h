// The compile cache every run of one script autotest shares (issue #28). torch.compile's
// candidate is measured in rounds of processes, and each would compile the model afresh (about
// 30 s of the ViT seed script on an H200). Inductor keeps what it compiled under
// TORCHINDUCTOR_CACHE_DIR (read since torch 2.0): its FX graph cache (the compiled graphs, looked
// up by the graph, its inputs' shapes and the compiler's configuration), its autotune results,
// and in recent torch (2.15) Triton's kernels where TRITON_CACHE_DIR is unset. Pointed at one
// folder advisor owns for the autotest, the first run compiles and the later ones load.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace advisor {

struct CompileCacheSettings {
  std::map<std::string, std::string> env;  // what advisor adds to every run's environment
  std::vector<std::string> kept;           // the user's own cache settings, "NAME=VALUE"
};

// The TORCHINDUCTOR_* variables of advisor's environment, which the runs inherit.
std::map<std::string, std::string> InductorEnvironment();

// The settings for a cache in `folder`: TORCHINDUCTOR_CACHE_DIR, and the FX graph cache switched
// on (TORCHINDUCTOR_FX_GRAPH_CACHE=1: read since torch 2.2, off by default in its first releases;
// the autotune cache has no variable and is on by default). A variable the user set (`user`, their
// TORCHINDUCTOR_* variables) is never overridden: it is left out of `env` and named in `kept`, as
// is each other of theirs that names a cache (TORCHINDUCTOR_FORCE_DISABLE_CACHES=1, say). `folder`
// is unused where they set TORCHINDUCTOR_CACHE_DIR.
CompileCacheSettings CompileCacheEnvironment(const std::string& folder,
                                             const std::map<std::string, std::string>& user);

// One progress line: where the runs' compile cache is, and the user's settings kept.
std::string DescribeCompileCache(const CompileCacheSettings& settings);

}  // namespace advisor
