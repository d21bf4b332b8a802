#include "engine/script/probe_messages.h"

#include <algorithm>
#include <cstdint>

#include "engine/script/stage_message.h"
#include "engine/script/stage_summary.h"

namespace advisor {
namespace {

using nlohmann::json;

// More modules than any model has: a bound on what a broken probe can make advisor hold.
constexpr std::size_t kMaxModules = 1'000'000;
constexpr std::int64_t kMaxLossSteps = 1'000'000;  // far above any window's steps; fits an int
// Ranks, nodes, workers: a bound above any job's that fits an int; larger counts are clamped to it.
constexpr std::int64_t kMaxRanks = 1 << 20;
// The instances an out-of-memory error's "kept_for_backward" names: the probe sends its 64 largest.
constexpr std::size_t kMaxKeptInstances = 64;

// A count the probe sends, clamped to `most` (a larger one is no reason to stop).
int ClampedCount(const JsonField& field, std::int64_t most) {
  return static_cast<int>(std::min(field.Integer(0), most));
}

ModuleTree ReadModules(const JsonField& modules) {
  ModuleTree tree;
  for (const JsonField& entry : modules.Elements(0, kMaxModules)) {
    ModuleInfo info;
    info.path = entry.Required("path").Text();
    info.type = entry.Required("type").Text();
    info.parameters = entry.Required("parameters").Integer(0);
    info.has_forward = entry.Required("has_forward").Bool();
    info.calls_submodules = entry.Required("calls_submodules").Bool();
    info.opaque_reason = entry.OptionalText("opaque");
    if (const std::optional<JsonField> compiled = entry.Optional("compiled")) {
      info.compiled = compiled->Bool();
    }
    const std::string path = info.path;
    if (!tree.emplace(path, std::move(info)).second) {
      entry.Fail("repeats the module path '" + path + "'");
    }
  }
  if (tree.count("") == 0) modules.Fail("has no root module (path \"\")");
  for (const auto& [path, info] : tree) {
    if (!path.empty() && tree.count(ParentPath(path)) == 0) {
      modules.Fail("has '" + path + "' without its parent");
    }
  }
  return tree;
}

std::optional<DeviceLimits> ReadDeviceLimits(const JsonField& limits) {
  if (limits.IsNull()) return std::nullopt;
  const auto count = [&limits](const char* key) { return limits.Required(key).Integer(0); };
  DeviceLimits out;
  out.sm_count = static_cast<int>(count("sm_count"));
  out.max_threads_per_sm = static_cast<int>(count("max_threads_per_sm"));
  out.regs_per_sm = static_cast<int>(count("regs_per_sm"));
  out.smem_per_sm = count("smem_per_sm");
  out.max_warps_per_sm = static_cast<int>(count("max_warps_per_sm"));
  // Python does not expose the resident block limit: 32 on every architecture since Volta
  // (compute capability 7.x and later), 16 or 32 before.
  out.max_blocks_per_sm = count("major") >= 7 ? 32 : 16;
  if (!out.complete()) return std::nullopt;
  return out;
}

std::optional<TrainingState> ReadTrainingState(const JsonField& state) {
  if (state.IsNull()) return std::nullopt;
  constexpr double kMiB = 1 << 20;
  TrainingState out;
  out.parameter_mb = state.Required("parameter_bytes").Integer(0) / kMiB;
  out.gradient_mb = state.Required("gradient_bytes").Integer(0) / kMiB;
  out.optimizer_state_mb = state.Required("optimizer_state_bytes").Integer(0) / kMiB;
  out.wrapper = state.Required("wrapper").Text();
  out.sharding_strategy = state.Required("sharding_strategy").Text();
  constexpr std::int64_t kMaxMicroSteps = 1 << 20;
  out.micro_steps = ClampedCount(state.Required("micro_steps"), kMaxMicroSteps);
  const JsonField synced = state.Required("synced_micro_steps");
  out.synced_micro_steps = ClampedCount(synced, kMaxMicroSteps);
  if (out.synced_micro_steps > out.micro_steps) {
    synced.Fail("must not exceed micro_steps (" + std::to_string(out.micro_steps) + ")");
  }
  return out;
}

std::optional<AllocatorAtFailure> ReadAllocatorAtFailure(const JsonField& allocator) {
  if (allocator.IsNull()) return std::nullopt;
  constexpr double kMiB = 1 << 20;
  const auto mb = [&allocator](const char* key) {
    return allocator.Required(key).Integer(0) / kMiB;
  };
  const auto optional_mb = [&allocator](const char* key) -> std::optional<double> {
    if (auto bytes = allocator.OptionalNonNull(key)) return bytes->Integer(0) / kMiB;
    return std::nullopt;
  };
  AllocatorAtFailure out;
  out.allocated_mb = mb("allocated_bytes");
  out.reserved_mb = mb("reserved_bytes");
  out.peak_allocated_mb = mb("peak_allocated_bytes");
  out.device_total_mb = mb("device_total_bytes");
  out.device_free_mb = optional_mb("device_free_bytes");
  out.largest_free_block_mb = optional_mb("largest_free_block_bytes");
  out.alloc_retries = allocator.Required("alloc_retries").Integer(0);
  out.expandable_segments = allocator.Required("expandable_segments").Bool();
  return out;
}

// "out_of_memory" of an "ended" message: what the probe saw of the error (the traceback's frames)
// and of the allocator.
OutOfMemoryFailure ReadOutOfMemory(const JsonField& oom) {
  OutOfMemoryFailure out;
  out.message = oom.Required("message").Text();
  out.requested_mb = RequestedMbOf(out.message);
  out.path = oom.Required("path").Text();
  out.phase =
      oom.Required("phase").Choice({"", "data", "forward", "loss", "backward", "optimizer"});
  out.op = oom.Required("op").Text();
  if (auto source = oom.OptionalNonNull("source")) {
    const std::vector<JsonField> parts = source->Elements(3, 3);
    out.source = SourceLocation{parts[0].Text(), static_cast<int>(parts[1].Integer(1, 1 << 30)),
                                parts[2].Text()};
  }
  out.allocator = ReadAllocatorAtFailure(oom.Required("allocator"));
  out.path_note = oom.OptionalText("path_note");
  if (auto kept = oom.Optional("kept_for_backward")) {
    constexpr double kMiB = 1 << 20;
    for (const JsonField& held : kept->Elements(0, kMaxKeptInstances)) {
      const std::vector<JsonField> parts = held.Elements(3, 3);
      out.kept_for_backward.push_back(
          {parts[0].Text(), parts[1].Integer(0) / kMiB, parts[2].Integer(0)});
    }
  }
  return out;
}

}  // namespace

std::string ProbeMessageName(const json& message) {
  const auto type = message.find("type");
  if (type == message.end() || !type->is_string()) return "probe message";
  const std::string& name = type->get_ref<const std::string&>();
  const bool printable = name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
                           return c >= 'a' && c <= 'z';
                         });
  return printable ? "probe message \"" + name + "\"" : "probe message";
}

std::string MessageType(const json& message) {
  const JsonField root(message, "probe message");
  return root.Required("type").Text();
}

ProbeHello ReadHello(const json& message) {
  const JsonField hello_message(message, ProbeMessageName(message));
  ProbeHello hello;
  hello.python_version = hello_message.Required("python").Text();
  hello.executable = hello_message.Required("executable").Text();
  hello.pid = hello_message.Required("pid").Integer(0);
  const std::int64_t rank = hello_message.Required("rank").Integer();
  const std::int64_t world_size = hello_message.Required("world_size").Integer();
  if (world_size < 1 || world_size > kMaxRanks || rank < 0 || rank >= world_size) {
    throw RankEnvironmentError(
        "was started with RANK=" + std::to_string(rank) + " and WORLD_SIZE=" +
        std::to_string(world_size) + ": WORLD_SIZE must be from 1 to " +
        std::to_string(kMaxRanks) + " and RANK from 0 to WORLD_SIZE - 1 (a launcher such as "
        "torchrun sets both)");
  }
  hello.rank = static_cast<int>(rank);
  hello.world_size = static_cast<int>(world_size);
  hello.local_world_size = hello.world_size;
  if (auto local = hello_message.Optional("local_world_size")) {
    hello.local_world_size = ClampedCount(*local, kMaxRanks);
    if (hello.local_world_size < 1 || hello.local_world_size > hello.world_size) {
      local->Refuse("an integer from 1 to the world size (" + std::to_string(hello.world_size) +
                    ")");
    }
  }
  // The node under a launcher of several (torchrun's GROUP_RANK of GROUP_WORLD_SIZE); without
  // them, node 0 of 1, which always fits.
  if (auto nodes = hello_message.Optional("group_world_size")) {
    hello.group_world_size = ClampedCount(*nodes, kMaxRanks);
    if (hello.group_world_size < 1 || hello.group_world_size > hello.world_size) {
      nodes->Refuse("an integer from 1 to the world size (" + std::to_string(hello.world_size) +
                    ")");
    }
  }
  if (auto node = hello_message.Optional("group_rank")) {
    hello.group_rank = ClampedCount(*node, kMaxRanks);
    if (hello.group_rank >= hello.group_world_size) {
      node->Refuse("an integer below group_world_size (" +
                   std::to_string(hello.group_world_size) + ")");
    }
  }
  hello.host = hello_message.OptionalText("host");
  return hello;
}

ProbeModel ReadModel(const json& message) {
  const JsonField model_message(message, ProbeMessageName(message));
  ProbeModel model;
  model.modules = ReadModules(model_message.Required("modules"));
  RunInfo& run = model.description.run;
  run.mode = Door::kScript;
  run.torch_version = model_message.Required("torch").Text();
  run.device = model_message.Required("device").Choice({"cpu", "cuda"});
  run.device_name = model_message.OptionalText("device_name");
  run.deterministic = model_message.Required("deterministic").Bool();
  if (run.device == "cuda") {  // the probe sends them as the model's first step found them
    if (auto tf32 = model_message.Optional("allow_tf32")) run.allow_tf32 = tf32->Bool();
    if (auto benchmark = model_message.Optional("cudnn_benchmark")) {
      run.cudnn_benchmark = benchmark->Bool();
    }
  }
  const JsonField input = model_message.Required("input");
  if (auto batch_size = input.Optional("batch_size")) {
    run.batch_size = ClampedCount(*batch_size, kMaxProbeCount);
  }
  run.dtype = input.OptionalText("dtype");
  if (const JsonField data = model_message.Required("data"); !data.IsNull()) {
    DataWait wait;
    wait.workers = ClampedCount(data.Required("workers"), kMaxRanks);
    wait.pin_memory = data.Required("pin_memory").Bool() && run.device == "cuda";
    model.description.input = wait;
  }
  model.description.device_limits = ReadDeviceLimits(model_message.Required("device_limits"));
  if (auto state = model_message.Optional("training_state")) {
    model.description.training_state = ReadTrainingState(*state);
  }
  return model;
}

ProbeEnded ReadEnded(const json& message) {
  const JsonField ended_message(message, ProbeMessageName(message));
  ProbeEnded ended;
  ended.steps = ClampedCount(ended_message.Required("steps"), kMaxProbeCount);
  ended.optimizer_seen = ended_message.Required("optimizer_seen").Bool();
  ended.model_seen = ended_message.Required("model_seen").Bool();
  ended.raised = ended_message.Required("raised").Bool();
  if (const std::optional<JsonField> frameworks = ended_message.Optional("frameworks")) {
    for (const JsonField& framework : frameworks->Elements(0, kMaxFrameworks)) {
      ended.frameworks.push_back(framework.Text(kMaxFrameworkBytes));
    }
  }
  if (auto oom = ended_message.OptionalNonNull("out_of_memory")) {
    ended.out_of_memory = ReadOutOfMemory(*oom);
    ended.training_state = ReadTrainingState(oom->Required("training_state"));
    ended.run.torch_version = oom->Required("torch").Text();
    ended.run.device = oom->Required("device").Choice({"cpu", "cuda"});
    const JsonField input = oom->Required("input");
    if (auto batch_size = input.Optional("batch_size")) {
      ended.run.batch_size = ClampedCount(*batch_size, kMaxProbeCount);
    }
    ended.run.dtype = input.OptionalText("dtype");
  }
  return ended;
}

std::string ReadFatal(const json& message) {
  const JsonField fatal(message, ProbeMessageName(message));
  return fatal.Required("message").Text();
}

TimedSteps ReadSteps(const json& message) {
  const JsonField steps_message(message, ProbeMessageName(message));
  const std::string clock =
      steps_message.Required("clock").Choice({"host", "host_synchronised", "cuda_events"});
  return {StepsFromJson(steps_message.Required("steps")),
          clock == "cuda_events"         ? StepTiming::kDeviceEvents
          : clock == "host_synchronised" ? StepTiming::kHostClockSynced
                                         : StepTiming::kHostClock};
}

ProbeWindow ReadWindow(const json& message) {
  const JsonField window(message, ProbeMessageName(message));
  ProbeWindow out;
  out.window.timeline.steps = StepsFromJson(window.Required("steps"));
  EventsFromJson(window.Required("events"), out.window.timeline);
  if (const JsonField memory = window.Required("memory"); !memory.IsNull()) {
    MemoryStats stats;
    stats.peak_allocated_mb = memory.Required("peak_allocated_mb").Number(NumberRange::AtLeast(0));
    stats.peak_reserved_mb = memory.Required("peak_reserved_mb").Number(NumberRange::AtLeast(0));
    stats.device_total_mb = memory.Required("device_total_mb").Number(NumberRange::AtLeast(0));
    stats.alloc_retries = memory.Required("alloc_retries").Integer(0);
    out.window.memory = stats;
    // What the allocator held as the window's recording began: the window's peak counts it.
    if (auto at_start = memory.Optional("at_start")) {
      out.window.timeline.memory_at_start = MemoryAtStartFromJson(*at_start);
    }
  }
  if (auto losses = window.Optional("losses")) {
    const std::int64_t steps = losses->Required("steps").Integer(0, kMaxLossSteps);
    const JsonField non_finite = losses->Required("non_finite");
    out.window.losses =
        LossCheck{static_cast<int>(steps), static_cast<int>(non_finite.Integer(0, steps))};
  }
  if (auto stage = window.OptionalNonNull("stage")) {
    const std::vector<StepSpan>& steps = out.window.timeline.steps;
    if (!steps.empty()) {
      out.window.input_stage = SummariseScriptStage(ReadStageRecords(*stage),
                                                   steps.front().start_ns, steps.back().end_ns);
    }
  }
  // A line's text is shown only: one that is not text of a line is left out, not refused.
  if (auto lines = window.Optional("lines")) {
    for (const JsonField& line : lines->Members()) {
      const json& text = line.value();
      out.lines[line.key()] =
          text.is_string() && text.get_ref<const std::string&>().size() <= kMaxJsonTextBytes
              ? text.get<std::string>()
              : std::string();
    }
  }
  return out;
}

LabelledSteps ReadLabelledSteps(ProbeWindow window) {
  static constexpr char kSourcePrefix[] = "advisor.source@";
  static constexpr char kCall[] = "advisor.call";
  LabelledSteps step;
  step.timeline = std::move(window.window.timeline);
  for (std::size_t i = 0; i < step.timeline.ops.size(); ++i) {
    const std::string& name = step.timeline.ops[i].name.str();
    if (name == kCall) {
      ++step.scope_calls;
      continue;
    }
    if (name.compare(0, sizeof kSourcePrefix - 1, kSourcePrefix) != 0) continue;
    const std::string where = name.substr(sizeof kSourcePrefix - 1);
    const std::size_t colon = where.rfind(':');
    if (colon == std::string::npos) continue;
    SourceLocation location;
    location.file = where.substr(0, colon);
    try {
      location.line = std::stoi(where.substr(colon + 1));
    } catch (const std::exception&) {
      continue;
    }
    if (auto text = window.lines.find(where); text != window.lines.end()) {
      location.text = text->second;
    }
    step.labels.emplace(i, std::move(location));
  }
  return step;
}

}  // namespace advisor
