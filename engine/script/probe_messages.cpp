#include "engine/script/probe_messages.h"

#include <algorithm>

#include "engine/analysis/placement.h"
#include "engine/script/message_fields.h"
#include "engine/script/stage_message.h"
#include "engine/script/stage_summary.h"

namespace advisor {

using namespace message_fields;

namespace {

using nlohmann::json;

// More modules than any model has: a bound on what a broken probe can make advisor hold.
constexpr std::size_t kMaxModules = 1'000'000;
constexpr long long kMaxLossSteps = 1'000'000;  // far above any window's steps; fits an int

ModuleTree ReadModules(const json& modules) {
  if (!modules.is_array() || modules.size() > kMaxModules) {
    throw ProbeMessageError("modules: not an array of modules");
  }
  ModuleTree tree;
  for (const json& entry : modules) {
    if (!entry.is_object()) throw ProbeMessageError("modules: an entry is not an object");
    ModuleInfo info;
    info.path = Text(Field(entry, "path"), "modules path");
    info.type = Text(Field(entry, "type"), "modules type");
    info.parameters = Count(Field(entry, "parameters"), "modules parameters");
    info.has_forward = Flag(Field(entry, "has_forward"), "modules has_forward");
    info.calls_submodules = Flag(Field(entry, "calls_submodules"), "modules calls_submodules");
    info.opaque_reason = TextOr(entry, "opaque", "modules opaque");
    const std::string path = info.path;
    if (!tree.emplace(path, std::move(info)).second) {
      throw ProbeMessageError("modules: '" + path + "' appears twice");
    }
  }
  if (tree.count("") == 0) throw ProbeMessageError("modules: no root");
  for (const auto& [path, info] : tree) {
    if (!path.empty() && tree.count(ParentPath(path)) == 0) {
      throw ProbeMessageError("modules: '" + path + "' has no parent in the tree");
    }
  }
  return tree;
}

std::optional<DeviceLimits> ReadDeviceLimits(const json& limits) {
  if (limits.is_null()) return std::nullopt;
  if (!limits.is_object()) throw ProbeMessageError("device_limits: not an object");
  DeviceLimits out;
  out.sm_count = static_cast<int>(Count(Field(limits, "sm_count"), "device_limits sm_count"));
  out.max_threads_per_sm =
      static_cast<int>(Count(Field(limits, "max_threads_per_sm"), "device_limits threads"));
  out.regs_per_sm = static_cast<int>(Count(Field(limits, "regs_per_sm"), "device_limits regs"));
  out.smem_per_sm = Count(Field(limits, "smem_per_sm"), "device_limits shared memory");
  out.max_warps_per_sm =
      static_cast<int>(Count(Field(limits, "max_warps_per_sm"), "device_limits warps"));
  // Python does not expose the resident block limit: 32 on every architecture since Volta
  // (compute capability 7.x and later), 16 or 32 before.
  const long long major = Count(Field(limits, "major"), "device_limits major");
  out.max_blocks_per_sm = major >= 7 ? 32 : 16;
  if (!out.complete()) return std::nullopt;
  return out;
}

std::optional<TrainingState> ReadTrainingState(const json& state) {
  if (state.is_null()) return std::nullopt;
  if (!state.is_object()) throw ProbeMessageError("training_state: not an object");
  constexpr double kMiB = 1 << 20;
  TrainingState out;
  out.parameter_mb =
      Count(Field(state, "parameter_bytes"), "training_state parameter_bytes") / kMiB;
  out.gradient_mb = Count(Field(state, "gradient_bytes"), "training_state gradient_bytes") / kMiB;
  out.optimizer_state_mb =
      Count(Field(state, "optimizer_state_bytes"), "training_state optimizer_state_bytes") / kMiB;
  out.wrapper = Text(Field(state, "wrapper"), "training_state wrapper");
  out.sharding_strategy =
      Text(Field(state, "sharding_strategy"), "training_state sharding_strategy");
  constexpr long long kMaxMicroSteps = 1 << 20;
  out.micro_steps = static_cast<int>(
      std::min(Count(Field(state, "micro_steps"), "training_state micro_steps"), kMaxMicroSteps));
  out.synced_micro_steps = static_cast<int>(std::min(
      Count(Field(state, "synced_micro_steps"), "training_state synced_micro_steps"),
      kMaxMicroSteps));
  if (out.synced_micro_steps > out.micro_steps) {
    throw ProbeMessageError("training_state: more synced micro-steps than micro-steps");
  }
  return out;
}

}  // namespace

std::string MessageType(const json& message) { return Text(Field(message, "type"), "type"); }

ProbeHello ReadHello(const json& message) {
  ProbeHello hello;
  hello.python_version = Text(Field(message, "python"), "hello python");
  hello.executable = Text(Field(message, "executable"), "hello executable");
  hello.pid = Count(Field(message, "pid"), "hello pid");
  hello.rank = static_cast<int>(std::min<long long>(Count(Field(message, "rank"), "hello rank"), 1 << 20));
  hello.world_size = static_cast<int>(
      std::min<long long>(Count(Field(message, "world_size"), "hello world_size"), 1 << 20));
  if (hello.world_size < 1 || hello.rank >= hello.world_size) {
    throw ProbeMessageError("hello: rank " + std::to_string(hello.rank) + " of world size " +
                            std::to_string(hello.world_size));
  }
  hello.local_world_size = hello.world_size;
  if (auto local = message.find("local_world_size"); local != message.end()) {
    hello.local_world_size = static_cast<int>(
        std::min<long long>(Count(*local, "hello local_world_size"), 1 << 20));
    if (hello.local_world_size < 1 || hello.local_world_size > hello.world_size) {
      throw ProbeMessageError("hello: local world size " + std::to_string(hello.local_world_size) +
                              " of world size " + std::to_string(hello.world_size));
    }
  }
  // The node under a launcher of several (torchrun's GROUP_RANK of GROUP_WORLD_SIZE).
  if (auto node = message.find("group_rank"); node != message.end()) {
    hello.group_rank = static_cast<int>(std::min<long long>(Count(*node, "hello group_rank"), 1 << 20));
  }
  if (auto nodes = message.find("group_world_size"); nodes != message.end()) {
    hello.group_world_size = static_cast<int>(
        std::min<long long>(Count(*nodes, "hello group_world_size"), 1 << 20));
  }
  if (hello.group_world_size < 1 || hello.group_rank >= hello.group_world_size ||
      hello.group_world_size > hello.world_size) {
    throw ProbeMessageError("hello: node " + std::to_string(hello.group_rank) + " of " +
                            std::to_string(hello.group_world_size) + " nodes, world size " +
                            std::to_string(hello.world_size));
  }
  hello.host = TextOr(message, "host", "hello host");
  return hello;
}

ProbeModel ReadModel(const json& message) {
  ProbeModel model;
  model.modules = ReadModules(Field(message, "modules"));
  RunInfo& run = model.description.run;
  run.mode = Door::kScript;
  run.torch_version = Text(Field(message, "torch"), "model torch");
  run.device = Text(Field(message, "device"), "model device");
  if (run.device != "cpu" && run.device != "cuda") {
    throw ProbeMessageError("model device: neither cpu nor cuda");
  }
  run.device_name = TextOr(message, "device_name", "model device_name");
  run.deterministic = Flag(Field(message, "deterministic"), "model deterministic");
  if (run.device == "cuda") {  // the probe sends them as the model's first step found them
    if (message.contains("allow_tf32")) {
      run.allow_tf32 = Flag(message["allow_tf32"], "model allow_tf32");
    }
    if (message.contains("cudnn_benchmark")) {
      run.cudnn_benchmark = Flag(message["cudnn_benchmark"], "model cudnn_benchmark");
    }
  }
  const json& input = Field(message, "input");
  if (!input.is_object()) throw ProbeMessageError("model input: not an object");
  if (input.contains("batch_size")) {
    run.batch_size = static_cast<int>(std::min<long long>(
        Count(input["batch_size"], "model input batch_size"), 1LL << 30));
  }
  run.dtype = TextOr(input, "dtype", "model input dtype");
  const json& data = Field(message, "data");
  if (data.is_object()) {
    DataWait wait;
    wait.workers = static_cast<int>(
        std::min<long long>(Count(Field(data, "workers"), "model data workers"), 1 << 20));
    wait.pin_memory = Flag(Field(data, "pin_memory"), "model data pin_memory") &&
                      run.device == "cuda";
    model.description.input = wait;
  } else if (!data.is_null()) {
    throw ProbeMessageError("model data: not an object");
  }
  model.description.device_limits = ReadDeviceLimits(Field(message, "device_limits"));
  if (auto state = message.find("training_state"); state != message.end()) {
    model.description.training_state = ReadTrainingState(*state);
  }
  return model;
}

ProbeEnded ReadEnded(const json& message) {
  ProbeEnded ended;
  ended.steps = static_cast<int>(std::min<long long>(Count(Field(message, "steps"), "ended steps"),
                                                     1 << 30));
  ended.optimizer_seen = Flag(Field(message, "optimizer_seen"), "ended optimizer_seen");
  ended.model_seen = Flag(Field(message, "model_seen"), "ended model_seen");
  return ended;
}

std::string ReadFatal(const json& message) { return Text(Field(message, "message"), "fatal message"); }

std::vector<StepSpan> ReadSteps(const json& message) { return StepsFromJson(Field(message, "steps")); }

ProbeWindow ReadWindow(const json& message) {
  ProbeWindow out;
  out.window.timeline.steps = StepsFromJson(Field(message, "steps"));
  EventsFromJson(Field(message, "events"), out.window.timeline);
  const json& memory = Field(message, "memory");
  if (memory.is_object()) {
    MemoryStats stats;
    stats.peak_allocated_mb = Number(Field(memory, "peak_allocated_mb"), "memory peak_allocated_mb");
    stats.peak_reserved_mb = Number(Field(memory, "peak_reserved_mb"), "memory peak_reserved_mb");
    stats.device_total_mb = Number(Field(memory, "device_total_mb"), "memory device_total_mb");
    stats.alloc_retries = Count(Field(memory, "alloc_retries"), "memory alloc_retries");
    out.window.memory = stats;
  } else if (!memory.is_null()) {
    throw ProbeMessageError("memory: not an object");
  }
  if (auto losses = message.find("losses"); losses != message.end()) {
    if (!losses->is_object()) throw ProbeMessageError("losses: not an object");
    const long long steps = Count(Field(*losses, "steps"), "losses steps");
    const long long non_finite = Count(Field(*losses, "non_finite"), "losses non_finite");
    if (non_finite > steps || steps > kMaxLossSteps) {
      throw ProbeMessageError("losses: non_finite above steps, or steps out of range");
    }
    out.window.losses = LossCheck{static_cast<int>(steps), static_cast<int>(non_finite)};
  }
  if (auto stage = message.find("stage"); stage != message.end() && !stage->is_null()) {
    const std::vector<StepSpan>& steps = out.window.timeline.steps;
    if (!steps.empty()) {
      out.window.input_stage = SummariseScriptStage(ReadStageRecords(*stage),
                                                   steps.front().start_ns, steps.back().end_ns);
    }
  }
  if (auto lines = message.find("lines"); lines != message.end()) {
    if (!lines->is_object()) throw ProbeMessageError("lines: not an object");
    for (const auto& [where, text] : lines->items()) {
      out.lines[where] = text.is_string() && text.get_ref<const std::string&>().size() <= kMaxTextBytes
                             ? text.get<std::string>()
                             : std::string();
    }
  }
  return out;
}

std::optional<SourceLocation> FindLabelledSource(const ProbeWindow& window, const std::string& op) {
  static constexpr char kPrefix[] = "advisor.source@";
  const Timeline& timeline = window.window.timeline;
  const std::vector<OpPlacement> placements = PlaceOps(timeline);
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    if (timeline.ops[i].name != op) continue;
    for (int parent = placements[i].parent; parent >= 0; parent = placements[parent].parent) {
      const std::string& label = timeline.ops[parent].name;
      if (label.compare(0, sizeof kPrefix - 1, kPrefix) != 0) continue;
      const std::string where = label.substr(sizeof kPrefix - 1);
      const std::size_t colon = where.rfind(':');
      if (colon == std::string::npos) break;
      SourceLocation location;
      location.file = where.substr(0, colon);
      try {
        location.line = std::stoi(where.substr(colon + 1));
      } catch (const std::exception&) {
        break;
      }
      if (auto text = window.lines.find(where); text != window.lines.end()) {
        location.text = text->second;
      }
      return location;
    }
  }
  return std::nullopt;
}

}  // namespace advisor
