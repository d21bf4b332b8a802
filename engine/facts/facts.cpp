#include "engine/facts/facts.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "engine/facts/allocator_settings.h"
#include "engine/facts/compile_json.h"
#include "engine/facts/host_allocator.h"
#include "engine/model/measured.h"

namespace advisor {
namespace {

using nlohmann::json;

// Sets `key` only when the value was measured: unmeasured facts are absent, never zero.
template <typename T>
void PutIf(json& object, const char* key, const std::optional<T>& value) {
  if (value) object[key] = *value;
}

std::optional<std::string> NonEmpty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

// `ms` as a fraction of the step; unknown when the step time is.
std::optional<double> ShareOfStep(double ms, double step_ms) {
  if (step_ms <= 0) return std::nullopt;
  return ms / step_ms;
}

json RunFacts(const RunInfo& run, const RunEnvironment& environment) {
  json facts = {
      {"mode", DoorName(run.mode)},
      {"model", run.model},
      {"device", run.device},
      {"device_name", run.device_name},
      {"torch_version", run.torch_version},
      {"cuda_graphs", run.cuda_graphs},
      {"warmup_steps", run.warmup_steps},
      {"window_steps", run.window_steps},
      {"allocator", AllocatorFacts(environment.cuda_alloc_conf)},
      {"host_allocator", HostAllocatorFacts(environment.host_allocator)},
  };
  PutIf(facts, "batch_size",
        run.batch_size > 0 ? std::optional<int>(run.batch_size) : std::nullopt);
  PutIf(facts, "dtype", NonEmpty(run.dtype));
  PutIf(facts, "deterministic", run.deterministic);
  PutIf(facts, "allow_tf32", run.allow_tf32);
  PutIf(facts, "cudnn_benchmark", run.cudnn_benchmark);
  PutIf(facts, "page_fault_us", run.page_fault_us);
  return facts;
}

json StepFacts(const StepBreakdown& step) {
  json facts = {
      {"median_ms", step.median_ms},     {"mean_ms", step.mean_ms},
      {"min_ms", step.min_ms},           {"max_ms", step.max_ms},
      {"forward_ms", step.forward_ms},   {"backward_ms", step.backward_ms},
      {"optimizer_ms", step.optimizer_ms},
  };
  const double step_ms = SharesStepMs(step);
  facts["ms"] = step_ms;
  if (step.profiled_ms > 0) facts["profiled_ms"] = step.profiled_ms;
  PutIf(facts, "forward_share", ShareOfStep(step.forward_ms, step_ms));
  if (step.loss_ms) {
    facts["loss_ms"] = *step.loss_ms;
    PutIf(facts, "loss_share", ShareOfStep(*step.loss_ms, step_ms));
  }
  PutIf(facts, "backward_share", ShareOfStep(step.backward_ms, step_ms));
  PutIf(facts, "optimizer_share", ShareOfStep(step.optimizer_ms, step_ms));
  PutIf(facts, "spread", ShareOfStep(step.max_ms - step.min_ms, step.median_ms));
  if (step.page_fault_ms) {
    facts["page_fault_ms"] = *step.page_fault_ms;
    PutIf(facts, "page_fault_share", ShareOfStep(*step.page_fault_ms, step_ms));
  }
  PutIf(facts, "graphed_median_ms", step.graphed_median_ms);
  return facts;
}

json OpFacts(const OpTime& op, double step_ms, bool gpu_measured, bool faults_counted) {
  json facts = {{"name", op.name}, {"phase", op.phase}, {"calls", op.calls}, {"ms", op.ms},
                {"self_ms", op.self_ms}};
  PutIf(facts, "share", ShareOfStep(op.ms, step_ms));
  PutIf(facts, "gpu_ms", gpu_measured ? std::optional<double>(op.gpu_ms) : std::nullopt);
  if (faults_counted) facts["page_fault_ms"] = op.page_fault_ms;
  return facts;
}

json SourceFacts(const SourceLocation& source) {
  return {{"file", source.file}, {"line", source.line}, {"text", source.text}};
}

json OpKindFacts(const std::vector<LineOpKind>& kinds) {
  json facts = json::array();
  for (const LineOpKind& kind : kinds) {
    facts.push_back(
        {{"name", kind.name}, {"calls", kind.calls}, {"us", kind.us}, {"share", kind.share}});
  }
  return facts;
}

json SourceLineFacts(const std::vector<SourceLine>& lines) {
  json facts = json::array();
  for (const SourceLine& line : lines) {
    json entry = {{"source", SourceFacts(line.source)},
                  {"runs", line.runs},
                  {"ops", line.ops},
                  {"op_us", line.op_us},
                  {"op_kinds", OpKindFacts(line.op_kinds)},
                  {"ms", line.ms},
                  {"share", line.share}};
    PutIf(entry, "runs_per_call", line.runs_per_call);
    PutIf(entry, "ops_per_call", line.ops_per_call);
    facts.push_back(std::move(entry));
  }
  return facts;
}

json LossFacts(const LossCost& loss) {
  return {{"ms", loss.ms},
          {"backward_ms", loss.backward_ms},
          {"share", loss.share},
          {"lines", SourceLineFacts(loss.lines)}};
}

json BroadcastFacts(const std::vector<BroadcastTemporary>& broadcasts) {
  json facts = json::array();
  for (const BroadcastTemporary& temporary : broadcasts) {
    facts.push_back({{"path", temporary.path},
                     {"op", temporary.op},
                     {"elements", temporary.elements},
                     {"input_elements", temporary.input_elements},
                     {"reads", temporary.reads},
                     {"ms", temporary.ms},
                     {"share", temporary.share}});
  }
  return facts;
}

json HotspotFacts(const Hotspot& hotspot, double step_ms, bool gpu_measured,
                  bool faults_counted) {
  json ops = json::array();
  for (const OpTime& op : hotspot.top_ops) {
    json op_facts = OpFacts(op, step_ms, gpu_measured, faults_counted);
    op_facts["path"] = hotspot.path;
    ops.push_back(std::move(op_facts));
  }
  json facts = {{"path", hotspot.path}, {"phase", hotspot.phase}, {"op", hotspot.op},
                {"ms", hotspot.ms},     {"share", hotspot.share}, {"ops", std::move(ops)}};
  PutIf(facts, "forward_op", NonEmpty(hotspot.forward_op));
  if (hotspot.source) {
    facts["source"] = SourceFacts(*hotspot.source);
  }
  facts["lines"] = SourceLineFacts(hotspot.lines);
  PutIf(facts, "view_op_us", hotspot.view_op_us);
  return facts;
}

// `kept_for_backward_mb`: what the memory section measured the instance keep for backward.
json ModuleFacts(const ModuleStats& module, double step_ms, bool gpu_measured,
                 std::optional<double> kept_for_backward_mb) {
  const std::set<std::string> kinds(module.op_types.begin(), module.op_types.end());
  json has_op = json::object();
  for (const std::string& kind : kinds) has_op[kind] = true;
  json facts = {{"path", module.path},         {"type", module.type},
                {"measured", module.measured}, {"op_types", kinds},
                {"has_op", std::move(has_op)}};
  PutIf(facts, "parameters", module.parameters);
  if (!module.op_input_elements.empty()) facts["op_input_elements"] = module.op_input_elements;
  PutIf(facts, "kept_for_backward_mb", kept_for_backward_mb);
  if (module.measured) {
    const double ms = module.forward_ms + module.backward_ms;
    facts["forward_ms"] = module.forward_ms;
    facts["backward_ms"] = module.backward_ms;
    facts["ms"] = ms;
    PutIf(facts, "share", ShareOfStep(ms, step_ms));
    PutIf(facts, "gpu_ms", gpu_measured ? std::optional<double>(module.gpu_ms) : std::nullopt);
  }
  return facts;
}

json GpuFacts(const GpuSummary& gpu, double step_ms) {
  json facts = {
      {"busy_fraction", gpu.busy_fraction},
      {"kernel_ms", gpu.kernel_ms},
      {"memcpy_ms", gpu.memcpy_ms},
      {"largest_idle_gap_ms", gpu.largest_idle_gap_ms},
      {"kernels_per_step", gpu.kernels_per_step},
      {"tiny_kernel_share", gpu.tiny_kernel_share},
      {"median_kernel_us", gpu.median_kernel_us},
  };
  if (step_ms > 0) facts["idle_ms"] = (1 - gpu.busy_fraction) * step_ms;
  PutIf(facts, "achieved_occupancy", gpu.achieved_occupancy);
  PutIf(facts, "sm_efficiency", gpu.sm_efficiency);
  return facts;
}

json SyncFacts(const std::vector<SyncSite>& syncs, double step_ms) {
  json facts = json::array();
  for (const SyncSite& sync : syncs) {
    json site = {{"kind", sync.kind},   {"path", sync.path},
                 {"op", sync.op},       {"phase", sync.phase},
                 {"count_per_step", sync.count_per_step}, {"wait_ms", sync.wait_ms}};
    PutIf(site, "share", ShareOfStep(sync.wait_ms, step_ms));
    facts.push_back(std::move(site));
  }
  return facts;
}

json CopyFacts(const std::vector<CopySite>& copies, double step_ms) {
  json facts = json::array();
  for (const CopySite& copy : copies) {
    json site = {{"path", copy.path},
                 {"op", copy.op},
                 {"phase", copy.phase},
                 {"count_per_step", copy.count_per_step},
                 {"mb_per_step", copy.bytes_per_step / (1024.0 * 1024.0)},
                 {"ms", copy.ms},
                 {"pageable", copy.pageable}};
    PutIf(site, "share", ShareOfStep(copy.ms, step_ms));
    facts.push_back(std::move(site));
  }
  return facts;
}

json InputStagePieceFacts(const InputStagePiece& piece) {
  json facts = {{"name", piece.name},
                {"kind", piece.kind},
                {"ms", piece.ms},
                {"share", piece.share},
                {"input_shape", piece.input_shape},
                {"output_shape", piece.output_shape}};
  if (piece.source) facts["source"] = SourceFacts(*piece.source);
  PutIf(facts, "dtype", NonEmpty(piece.dtype));
  PutIf(facts, "input_is_binary", piece.input_is_binary);
  return facts;
}

json InputStageFacts(const InputStageProfile& stage) {
  json pieces = json::array();
  for (const InputStagePiece& piece : stage.pieces) pieces.push_back(InputStagePieceFacts(piece));
  json facts = {{"batch_ms", stage.batch_ms},
                {"batches", stage.batches},
                {"output_shape", stage.output_shape},
                {"cores", stage.cores},
                {"pieces", std::move(pieces)}};
  PutIf(facts, "output_dtype", NonEmpty(stage.output_dtype));
  PutIf(facts, "worker_busy_share", stage.worker_busy_share);
  return facts;
}

json LoaderFacts(const LoaderEpochs& loader) {
  json facts = {{"workers", loader.workers},
                {"persistent", loader.persistent},
                {"batches_per_step", loader.batches_per_step},
                {"epochs_seen", loader.epochs_seen}};
  PutIf(facts, "epoch_batches", loader.epoch_batches);
  PutIf(facts, "epoch_start_ms", loader.epoch_start_ms);
  return facts;
}

// The wait of the profiled window, and beside it the unprofiled steps' (their data phase, on a GPU
// timed by CUDA events; a mean over the same steps as step.mean_ms) where they were timed by phase.
json DataFacts(const DataWait& data, const StepBreakdown& step) {
  json facts = {{"wait_ms", data.wait_ms}};
  PutIf(facts, "workers", data.workers);
  PutIf(facts, "pin_memory", data.pin_memory);
  PutIf(facts, "wait_share", ShareOfStep(data.wait_ms, SharesStepMs(step)));
  if (step.timed_phases && step.timed_phases->data_ms) {
    facts["unprofiled_wait_ms"] = *step.timed_phases->data_ms;
  }
  if (data.stage) facts["stage"] = InputStageFacts(*data.stage);
  if (data.loader) facts["loader"] = LoaderFacts(*data.loader);
  const std::optional<bool> keep_up = WorkersKeepUp(data, step);
  PutIf(facts, "workers_keep_up", keep_up);
  if (keep_up && data.stage->worker_busy_share) {
    facts["main_process_work"] = DataPhaseIsMainProcessWork(data, step);
  }
  return facts;
}

json MemoryFacts(const MemoryStats& memory) {
  json facts = {
      {"peak_allocated_mb", memory.peak_allocated_mb},
      {"peak_reserved_mb", memory.peak_reserved_mb},
      {"device_total_mb", memory.device_total_mb},
      {"device_allocs", memory.num_device_allocs},
  };
  PutIf(facts, "alloc_retries", memory.alloc_retries);
  PutIf(facts, "tensor_allocs_per_step", memory.tensor_allocs_per_step);
  PutIf(facts, "tensor_alloc_mb_per_step", memory.tensor_alloc_mb_per_step);
  PutIf(facts, "growth_mb_per_step", memory.growth_mb_per_step);
  if (memory.growth_source) facts["growth_source"] = SourceFacts(*memory.growth_source);
  PutIf(facts, "peak_reserved_share", ShareOfStep(memory.peak_reserved_mb, memory.device_total_mb));
  PutIf(facts, "peak_allocated_share",
        ShareOfStep(memory.peak_allocated_mb, memory.device_total_mb));
  return facts;
}

json RankFacts(const RankSummary& rank) {
  json facts = {{"rank", rank.rank},
                {"step_ms", rank.step_ms},
                {"forward_ms", rank.forward_ms},
                {"backward_ms", rank.backward_ms},
                {"optimizer_ms", rank.optimizer_ms},
                {"compute_ms", rank.compute_ms},
                {"comm_ms", rank.comm_ms},
                {"exposed_comm_ms", rank.exposed_comm_ms},
                {"late_ms", rank.late_ms},
                {"wait_ms", rank.wait_ms},
                {"last_arrivals", rank.last_arrivals}};
  PutIf(facts, "data_wait_ms", rank.data_wait_ms);
  PutIf(facts, "exposed_comm_share", ShareOfStep(rank.exposed_comm_ms, rank.step_ms));
  PutIf(facts, "late_share", ShareOfStep(rank.late_ms, rank.step_ms));
  if (const std::optional<UnprofiledSteps>& steps = rank.unprofiled) {
    facts["unprofiled"] = {{"steps", steps->steps},
                           {"step_ms", steps->step_ms},
                           {"data_wait_ms", steps->data_wait_ms},
                           {"forward_ms", steps->forward_ms},
                           {"backward_ms", steps->backward_ms},
                           {"optimizer_ms", steps->optimizer_ms}};
  }
  return facts;
}

json StragglerFacts(const Straggler& straggler, double step_ms) {
  json facts = {{"rank", straggler.rank},
                {"late_ms", straggler.late_ms},
                {"sure_late_ms", straggler.sure_late_ms},
                {"last_share", straggler.last_share},
                {"compute_excess_ms", straggler.compute_excess_ms}};
  PutIf(facts, "late_share", ShareOfStep(straggler.late_ms, step_ms));
  PutIf(facts, "sure_late_share", ShareOfStep(straggler.sure_late_ms, step_ms));
  PutIf(facts, "data_wait_excess_ms", straggler.data_wait_excess_ms);
  PutIf(facts, "pre_backward_excess_ms", straggler.pre_backward_excess_ms);
  PutIf(facts, "unprofiled_excess_ms", straggler.unprofiled_excess_ms);
  PutIf(facts, "holds_unprofiled", straggler.holds_unprofiled);
  if (!straggler.path.empty()) {
    facts["path"] = straggler.path;
    facts["path_excess_ms"] = straggler.path_excess_ms;
    facts["path_by_wall_time"] = straggler.path_by_wall_time;
  }
  if (!straggler.op.empty()) {
    facts["op"] = straggler.op;
    facts["op_phase"] = straggler.op_phase;
    facts["op_excess_ms"] = straggler.op_excess_ms;
  }
  return facts;
}

json TrainingStateFacts(const TrainingState& state) {
  return {{"parameter_mb", state.parameter_mb},
          {"gradient_mb", state.gradient_mb},
          {"optimizer_state_mb", state.optimizer_state_mb},
          {"wrapper", state.wrapper},
          {"sharding_strategy", state.sharding_strategy},
          {"micro_steps", state.micro_steps},
          {"synced_micro_steps", state.synced_micro_steps}};
}

// What torch.compile did (script mode): the rules weigh its recompilations' seconds against the
// step (mean_compile_s: compile_s over the compilations torch's metrics hold).
json CompileFacts(const CompileReport& compile) {
  json facts = CompileJson(compile);
  if (compile.compilations > 0) facts["mean_compile_s"] = compile.compile_s / compile.compilations;
  return facts;
}

// What an out-of-memory error left, with what the fixes' savings are weighed against: the
// memory the allocator could have served the request from (its largest free block or the
// device's free memory), the shortfall, and the activations (allocated less the training
// state) that autocast and a smaller batch shrink.
json OutOfMemoryFacts(const OutOfMemoryFailure& failure,
                      const std::optional<TrainingState>& training_state) {
  json facts = {{"path", failure.path},
                {"phase", failure.phase},
                {"op", failure.op},
                {"steps_done", failure.steps_done}};
  PutIf(facts, "requested_mb", failure.requested_mb);
  if (failure.source) {
    facts["source"] = {{"file", failure.source->file},
                       {"line", failure.source->line},
                       {"text", failure.source->text}};
  }
  if (!failure.kept_for_backward.empty()) {
    json kept = json::array();
    double kept_mb = 0;
    for (const MemoryShare& share : failure.kept_for_backward) {
      kept.push_back({{"path", share.name}, {"mb", share.mb}});
      kept_mb += share.mb;
    }
    facts["kept_for_backward"] = std::move(kept);
    facts["kept_for_backward_mb"] = kept_mb;
  }
  const std::optional<AllocatorAtFailure>& allocator = failure.allocator;
  if (!allocator) return facts;
  facts["allocated_mb"] = allocator->allocated_mb;
  facts["reserved_mb"] = allocator->reserved_mb;
  facts["fragmentation_mb"] = allocator->reserved_mb - allocator->allocated_mb;
  facts["device_total_mb"] = allocator->device_total_mb;
  facts["expandable_segments"] = allocator->expandable_segments;
  PutIf(facts, "device_free_mb", allocator->device_free_mb);
  PutIf(facts, "largest_free_block_mb", allocator->largest_free_block_mb);
  if (allocator->device_free_mb || allocator->largest_free_block_mb) {
    const double available = std::max(allocator->device_free_mb.value_or(0),
                                       allocator->largest_free_block_mb.value_or(0));
    facts["available_mb"] = available;
    if (failure.requested_mb)
      facts["shortfall_mb"] = std::max(0.0, *failure.requested_mb - available);
  }
  if (training_state) {
    const double held = training_state->parameter_mb + training_state->gradient_mb +
                        training_state->optimizer_state_mb;
    facts["training_state_mb"] = held;
    facts["activations_mb"] = std::max(0.0, allocator->allocated_mb - held);
  }
  return facts;
}

json DistributedFacts(const DistributedSummary& distributed) {
  json facts = {{"world_size", distributed.world_size},
                {"ranks_traced", static_cast<int>(distributed.ranks.size())},
                {"backend", distributed.backend},
                {"collectives_matched", distributed.collectives_matched},
                {"collectives_unmatched", distributed.collectives_unmatched},
                {"skew_median_ms", distributed.skew_median_ms},
                {"skew_max_ms", distributed.skew_max_ms}};
  if (distributed.straggler) {
    double step_ms = 0;
    for (const RankSummary& rank : distributed.ranks) {
      if (rank.rank == distributed.straggler->rank) step_ms = rank.step_ms;
    }
    facts["straggler"] = StragglerFacts(*distributed.straggler, step_ms);
  }
  return facts;
}

}  // namespace

RunEnvironment ReadRunEnvironment() {
  RunEnvironment environment;
  if (const char* conf = std::getenv("PYTORCH_CUDA_ALLOC_CONF")) environment.cuda_alloc_conf = conf;
  environment.host_allocator = ReadHostAllocatorEnvironment();
  return environment;
}

json BuildFacts(const RunReport& report, const RunEnvironment& environment) {
  const double step_ms = SharesStepMs(report.step);
  // The GPU probe measured this run: per-op and per-module GPU times, syncs and copies exist
  // (possibly as empty lists) only then.
  const bool gpu_measured = report.gpu.has_value();
  const bool faults_counted = report.run.page_fault_us.has_value();

  std::map<std::string, double> kept_for_backward_mb;
  if (report.memory) {
    for (const ModuleMemory& module : report.memory->modules) {
      if (module.kept_for_backward_mb) {
        kept_for_backward_mb[module.path] = *module.kept_for_backward_mb;
      }
    }
  }
  json modules = json::object();
  for (const ModuleStats& module : report.modules) {
    const auto kept = kept_for_backward_mb.find(module.path);
    modules[module.path] = ModuleFacts(
        module, step_ms, gpu_measured,
        kept != kept_for_backward_mb.end() ? std::optional<double>(kept->second) : std::nullopt);
  }
  json ops = json::array();
  for (const OpTime& op : report.ops) {
    ops.push_back(OpFacts(op, step_ms, gpu_measured, faults_counted));
  }

  json facts = {
      {"run", RunFacts(report.run, environment)},
      {"step", StepFacts(report.step)},
      {"modules", std::move(modules)},
      {"ops", std::move(ops)},
      {"broadcasts", BroadcastFacts(report.broadcasts)},
  };
  if (report.hotspot) {
    facts["hotspot"] = HotspotFacts(*report.hotspot, step_ms, gpu_measured, faults_counted);
  }
  if (gpu_measured) {
    facts["gpu"] = GpuFacts(*report.gpu, step_ms);
    facts["syncs"] = SyncFacts(report.syncs, step_ms);
    facts["copies"] = CopyFacts(report.copies, step_ms);
  }
  if (report.memory) facts["memory"] = MemoryFacts(*report.memory);
  if (report.loss) facts["loss"] = LossFacts(*report.loss);
  if (report.data) facts["data"] = DataFacts(*report.data, report.step);
  if (report.distributed) {
    json ranks = json::array();
    for (const RankSummary& rank : report.distributed->ranks) ranks.push_back(RankFacts(rank));
    facts["ranks"] = std::move(ranks);
    facts["distributed"] = DistributedFacts(*report.distributed);
  }
  if (report.training_state) facts["training_state"] = TrainingStateFacts(*report.training_state);
  if (report.compile) facts["compile"] = CompileFacts(*report.compile);
  if (report.out_of_memory) {
    facts["out_of_memory"] = OutOfMemoryFacts(*report.out_of_memory, report.training_state);
  }
  return facts;
}

}  // namespace advisor
