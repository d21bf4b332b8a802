// A recipe is one fix the autotester can try: a knob (a change to the workload or its environment)
// or a graph rewrite. Recipes live in recipes/<id>.json (format in docs/recipes.md); they are user
// input, so the loader validates every field and names the file and the problem in one line.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/door.h"

namespace advisor {

enum class RecipeKind { kKnob, kRewrite };

// "planned" recipes are documented but the worker cannot apply them yet: the autotester skips them
// with a "not implemented" reason instead of measuring something else under their name.
enum class RecipeStatus { kReady, kPlanned };

// How the numerics check compares candidate and baseline. Ordered from strictest to loosest, so a
// combination takes the largest of its members'.
enum class ToleranceClass {
  kReordering,  // same arithmetic, possibly in another order (other kernels, fused ops)
  kTf32,        // float32 matmul/conv inputs rounded to TF32 (10-bit mantissa)
  kUnchecked,   // the recipe changes what is computed; no comparison is meaningful
};

// A thread or worker count: a positive number, or one per physical core of the machine that runs
// the worker (only the worker knows that machine).
struct ThreadCount {
  static constexpr int kOnePerPhysicalCore = 0;
  int count = kOnePerPhysicalCore;
  bool operator==(const ThreadCount& other) const { return count == other.count; }
};

// Changes a knob recipe makes to the workload inside the worker. Unset fields keep the workload's
// own setting. JSON names are the field names.
struct RecipeOverrides {
  std::optional<bool> deterministic;              // torch deterministic algorithms on/off
  std::optional<int> batch_scale;                 // multiplies the batch dimension (>= 2)
  std::optional<std::string> autocast_dtype;      // "bfloat16": autocast forward and loss
  std::optional<bool> allow_tf32;                 // TF32 in float32 matmuls and cuDNN convolutions
  std::optional<bool> cudnn_benchmark;            // cuDNN autotuner picks convolution algorithms
  std::optional<bool> channels_last;              // model and 4-D inputs in channels-last layout
  std::optional<bool> cuda_graphs;                // capture the whole step once, replay it
  std::optional<bool> fused_optimizer;            // one fused kernel for the optimizer step
  std::optional<bool> pin_memory;                 // inputs staged in pinned host memory
  std::optional<ThreadCount> dataloader_workers;  // host-side input stage in parallel workers
  std::optional<ThreadCount> intra_op_threads;    // ATen intra-op parallelism on CPU
  std::optional<std::string> sdpa_backend;        // the one SDPA backend left enabled (below)
  std::optional<bool> compile;                    // torch.compile the model (script mode)
  // torch.compile in one of its costlier forms (script mode; CompileModeNames): compiling alone,
  // without `compile`, which must not be false beside it.
  std::optional<std::string> compile_mode;
  // DistributedDataParallel's constructor arguments, set in every rank of a launcher's job:
  std::optional<int> ddp_bucket_cap_mb;             // gradients per all-reduce bucket, MiB
  std::optional<bool> ddp_gradient_as_bucket_view;  // gradients are views into the buckets
  std::optional<bool> ddp_static_graph;             // the same parameters used every step
  std::optional<bool> ddp_no_sync;  // all but the last micro-step of a step under no_sync()
  // FullyShardedDataParallel's sharding_strategy, where the script builds one (below)
  std::optional<std::string> fsdp_sharding_strategy;
  std::optional<bool> persistent_workers;         // DataLoader workers kept across epochs (script)
  // Module instances whose forward runs under torch.utils.checkpoint (script). A recipe file gives
  // [], filled before the autotest with the instances its findings name (AimAtFindings).
  std::optional<std::vector<std::string>> checkpoint_modules;
  // The attention transformers' models in the script run (attn_implementation: "sdpa"), switched
  // where their configuration says "eager" (script).
  std::optional<std::string> attn_implementation;
};

// Whether `overrides` compile the model with torch.compile, in its default form or in a mode.
inline bool Compiles(const RecipeOverrides& overrides) {
  return overrides.compile.value_or(false) || overrides.compile_mode.has_value();
}

// FSDP's ShardingStrategy members, as `fsdp_sharding_strategy` names them.
inline const std::vector<std::string>& FsdpShardingStrategies() {
  static const std::vector<std::string> names = {"FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD",
                                                 "HYBRID_SHARD"};
  return names;
}

// The backends scaled_dot_product_attention dispatches to on CUDA, as `sdpa_backend` names them:
// flash, efficient (memory-efficient), cudnn, math (the unfused reference).
inline const std::vector<std::string>& SdpaBackendNames() {
  static const std::vector<std::string> names = {"flash", "efficient", "cudnn", "math"};
  return names;
}

// The forms of torch.compile `compile_mode` names: torch.compile's modes "max-autotune" (the
// GEMMs' and convolutions' kernels autotuned) and "reduce-overhead" (the compiled graphs replayed
// as CUDA graphs), and "regional": each block of the model's largest container of repeated
// blocks compiled alone, the rest eager (torch's regional compilation).
inline const std::vector<std::string>& CompileModeNames() {
  static const std::vector<std::string> names = {"max-autotune", "reduce-overhead", "regional"};
  return names;
}

// Calls visit(json_name, member) for every override field, `member` being a pointer to the
// RecipeOverrides member, so that the parser and the merge of a combination walk one list.
template <class Visit>
void ForEachOverrideField(Visit&& visit) {
  visit("deterministic", &RecipeOverrides::deterministic);
  visit("batch_scale", &RecipeOverrides::batch_scale);
  visit("autocast_dtype", &RecipeOverrides::autocast_dtype);
  visit("allow_tf32", &RecipeOverrides::allow_tf32);
  visit("cudnn_benchmark", &RecipeOverrides::cudnn_benchmark);
  visit("channels_last", &RecipeOverrides::channels_last);
  visit("cuda_graphs", &RecipeOverrides::cuda_graphs);
  visit("fused_optimizer", &RecipeOverrides::fused_optimizer);
  visit("pin_memory", &RecipeOverrides::pin_memory);
  visit("dataloader_workers", &RecipeOverrides::dataloader_workers);
  visit("intra_op_threads", &RecipeOverrides::intra_op_threads);
  visit("sdpa_backend", &RecipeOverrides::sdpa_backend);
  visit("compile", &RecipeOverrides::compile);
  visit("compile_mode", &RecipeOverrides::compile_mode);
  visit("ddp_bucket_cap_mb", &RecipeOverrides::ddp_bucket_cap_mb);
  visit("ddp_gradient_as_bucket_view", &RecipeOverrides::ddp_gradient_as_bucket_view);
  visit("ddp_static_graph", &RecipeOverrides::ddp_static_graph);
  visit("ddp_no_sync", &RecipeOverrides::ddp_no_sync);
  visit("fsdp_sharding_strategy", &RecipeOverrides::fsdp_sharding_strategy);
  visit("persistent_workers", &RecipeOverrides::persistent_workers);
  visit("checkpoint_modules", &RecipeOverrides::checkpoint_modules);
  visit("attn_implementation", &RecipeOverrides::attn_implementation);
}

struct Recipe {
  std::string id;  // equals the file name without .json
  std::string title;
  std::string description;
  RecipeKind kind = RecipeKind::kKnob;
  RecipeStatus status = RecipeStatus::kReady;
  bool preserves_semantics = false;
  ToleranceClass tolerance = ToleranceClass::kUnchecked;
  std::vector<std::string> devices;         // "cpu", "cuda"
  // The front doors that can apply it: kModel (a TorchScript model.pt, `advisor candidate`),
  // kScript (the user's Python script, relaunched with the probe applying the knob), kRanks (a
  // script whose launcher starts several ranks: the probe applies the knob in every rank). A
  // graph rewrite needs a model; torch.compile needs a script; a DDP knob needs ranks. A script's
  // knob applies to a launcher's ranks too. Never kTrace: a trace runs nothing.
  std::vector<Door> doors = {Door::kModel, Door::kScript};
  std::map<std::string, std::string> env;   // set in the worker's environment before it starts
  RecipeOverrides overrides;                // knobs only
  std::string rewrite;                      // rewrites only: a built-in rewrite (kBuiltinRewrites)
  std::string min_torch_version;            // "" when any LibTorch will do
  std::vector<std::string> conflicts_with;  // recipe ids never combined with this one
  std::string source;                       // where it was read from, for messages
};

// The graph rewrites the worker implements; a rewrite recipe must name one of them.
inline const std::vector<std::string>& BuiltinRewrites() {
  static const std::vector<std::string> rewrites = {"gather-to-index", "sdpa-attention",
                                                     "crop-first"};
  return rewrites;
}

// A recipe that cannot be used. what() is one line: "<source>: <field>: <problem>".
class RecipeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses one recipe; `source` names it in errors. Throws RecipeError.
Recipe ParseRecipe(const std::string& json_text, const std::string& source);

// Reads recipes/<id>.json; the id inside must equal the file name. Throws RecipeError.
Recipe LoadRecipe(const std::string& path);

struct RecipeSet {
  std::vector<Recipe> recipes;      // sorted by id
  std::vector<std::string> errors;  // one line per file that was left out
};

// Loads every *.json in `dir`. A bad file, or one whose conflicts_with names a recipe that does
// not exist, is left out with an error; the others still load.
RecipeSet LoadRecipeDir(const std::string& dir);

const Recipe* FindRecipe(const std::vector<Recipe>& recipes, const std::string& id);

const char* RecipeKindName(RecipeKind kind);  // "knob", "rewrite"

}  // namespace advisor
