#include "engine/report/json_writer.h"

#include "engine/facts/compile_json.h"
#include "engine/model/measured.h"
#include "engine/report/compiled_kernels_section.h"

namespace advisor {

using nlohmann::json;

namespace {

json OrNull(bool measured, double value) { return measured ? json(value) : json(nullptr); }

template <typename T>
json OrNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json RunToJson(const RunInfo& run) {
  return {{"mode", DoorName(run.mode)},
          {"model", run.model},
          {"device", run.device},
          {"device_name", run.device_name},
          {"torch_version", run.torch_version},
          {"advisor_version", run.advisor_version},
          {"warmup_steps", run.warmup_steps},
          {"window_steps", run.window_steps},
          {"windows", run.windows},
          {"site_windows", run.site_windows},
          {"memory_windows", run.memory_windows},
          {"repeated_windows", run.repeated_windows},
          {"look_ahead_windows", run.look_ahead_windows},
          {"batch_size", run.batch_size > 0 ? json(run.batch_size) : json(nullptr)},
          {"deterministic", OrNull(run.deterministic)},
          {"allow_tf32", OrNull(run.allow_tf32)},
          {"cudnn_benchmark", OrNull(run.cudnn_benchmark)},
          {"page_fault_us", OrNull(run.page_fault_us)},
          {"cuda_graphs", run.cuda_graphs},
          {"dtype", run.dtype},
          {"wall_s", run.wall_s},
          {"command", run.command},
          {"python", run.mode == Door::kScript ? json(run.python) : json(nullptr)},
          {"python_version", run.mode == Door::kScript ? json(run.python_version) : json(nullptr)}};
}

json PhaseTimesToJson(const std::optional<StepPhaseTimes>& phases) {
  if (!phases) return nullptr;
  return {{"data", OrNull(phases->data_ms)},
          {"forward", phases->forward_ms},
          {"loss", OrNull(phases->loss_ms)},
          {"backward", phases->backward_ms},
          {"optimizer", phases->optimizer_ms},
          {"evaluation", phases->evaluation_ms},
          {"rest", phases->rest_ms}};
}

json StepToJson(const StepBreakdown& step, const std::optional<DataWait>& data) {
  const double data_ms = data ? data->wait_ms : 0.0;
  const auto share = [&](double ms) {
    return step.profiled_ms > 0 ? json(ms / step.profiled_ms) : json(nullptr);
  };
  return {{"median_ms", step.median_ms},
          {"mean_ms", step.mean_ms},
          {"min_ms", step.min_ms},
          {"max_ms", step.max_ms},
          {"samples_ms", step.samples_ms},
          {"timed_by", StepTimingName(step.timing)},
          {"timed_phases_ms", PhaseTimesToJson(step.timed_phases)},
          {"profiled_ms", step.profiled_ms},
          {"forward_ms", step.forward_ms},
          {"loss_ms", OrNull(step.loss_ms)},
          {"backward_ms", step.backward_ms},
          {"optimizer_ms", step.optimizer_ms},
          {"evaluation_ms", step.evaluation_ms},
          {"rest_ms", step.rest_ms},
          {"page_fault_ms", OrNull(step.page_fault_ms)},
          {"shares",
           {{"data", share(data_ms)},
            {"forward", share(step.forward_ms)},
            {"loss", step.loss_ms ? share(*step.loss_ms) : json(nullptr)},
            {"backward", share(step.backward_ms)},
            {"optimizer", share(step.optimizer_ms)},
            {"evaluation", share(step.evaluation_ms)},
            {"rest", share(step.rest_ms)}}},
          {"graphed_median_ms", OrNull(step.graphed_median_ms)}};
}

json CandidateToJson(const Candidate& candidate, bool gpu_measured) {
  return {{"path", candidate.path},
          {"forward_ms", candidate.forward_ms},
          {"backward_ms", candidate.backward_ms},
          {"gpu_ms", OrNull(gpu_measured, candidate.gpu_ms)},
          {"share", candidate.share},
          {"instances", candidate.instances}};
}

const char* LevelMeasureName(LevelMeasure measure) {
  switch (measure) {
    case LevelMeasure::kMarkers:
      return "markers";
    case LevelMeasure::kRegionalCompilation:
      return "regional_compilation";
    case LevelMeasure::kProvenance:
      return "provenance";
  }
  return "markers";
}

json BisectionToJson(const std::vector<BisectLevel>& levels, const std::string& ranked_by,
                     bool gpu_measured) {
  json out = json::array();
  for (const BisectLevel& level : levels) {
    json candidates = json::array();
    for (const Candidate& candidate : level.candidates) {
      candidates.push_back(CandidateToJson(candidate, gpu_measured));
    }
    out.push_back({{"depth", level.depth},
                   {"parent", level.parent},
                   {"candidates", std::move(candidates)},
                   {"chosen", level.chosen},
                   {"reason", level.reason},
                   {"reused_window", level.reused_window},
                   {"window_step_ms",
                    OrNull(!level.reused_window && level.measured_by != LevelMeasure::kProvenance,
                           level.window_step_ms)},
                   {"steps_backing", level.steps_backing},
                   {"measured_again", level.measured_again},
                   {"measured_by", LevelMeasureName(level.measured_by)}});
  }
  return {{"ranked_by", ranked_by.empty() ? json(nullptr) : json(ranked_by)},
          {"levels", std::move(out)}};
}

json OpToJson(const OpTime& op, bool gpu_measured, bool faults_counted) {
  return {{"name", op.name},
          {"phase", op.phase},
          {"calls", op.calls},
          {"ms", op.ms},
          {"self_ms", op.self_ms},
          {"gpu_ms", OrNull(gpu_measured, op.gpu_ms)},
          {"self_gpu_ms", gpu_measured ? OrNull(op.self_gpu_ms) : json(nullptr)},
          {"page_fault_ms", OrNull(faults_counted, op.page_fault_ms)}};
}

json OpsToJson(const std::vector<OpTime>& ops, bool gpu_measured, bool faults_counted) {
  json out = json::array();
  for (const OpTime& op : ops) out.push_back(OpToJson(op, gpu_measured, faults_counted));
  return out;
}

json SourceToJson(const std::optional<SourceLocation>& source) {
  if (!source) return nullptr;
  return {{"file", source->file}, {"line", source->line}, {"text", source->text}};
}

json OpKindsToJson(const std::vector<LineOpKind>& kinds) {
  json out = json::array();
  for (const LineOpKind& kind : kinds) {
    out.push_back(
        {{"name", kind.name}, {"calls", kind.calls}, {"us", kind.us}, {"share", kind.share}});
  }
  return out;
}

json SourceLinesToJson(const std::vector<SourceLine>& lines) {
  json out = json::array();
  for (const SourceLine& line : lines) {
    out.push_back({{"file", line.source.file},
                   {"line", line.source.line},
                   {"text", line.source.text},
                   {"runs", line.runs},
                   {"ops", line.ops},
                   {"op_us", line.op_us},
                   {"op_kinds", OpKindsToJson(line.op_kinds)},
                   {"runs_per_call", OrNull(line.runs_per_call)},
                   {"ops_per_call", OrNull(line.ops_per_call)},
                   {"ms", line.ms},
                   {"share", line.share}});
  }
  return out;
}

json OpLinesToJson(const std::vector<OpLine>& lines) {
  json out = json::array();
  for (const OpLine& line : lines) {
    out.push_back({{"file", line.source.file},
                   {"line", line.source.line},
                   {"text", line.source.text},
                   {"forward_op", line.forward_op},
                   {"calls", line.calls},
                   {"ms", line.ms},
                   {"share", line.share}});
  }
  return out;
}

json LossToJson(const std::optional<LossCost>& loss) {
  if (!loss) return nullptr;
  return {{"ms", loss->ms},
          {"backward_ms", loss->backward_ms},
          {"share", loss->share},
          {"lines", SourceLinesToJson(loss->lines)}};
}

json HotspotToJson(const std::optional<Hotspot>& hotspot, bool gpu_measured, bool faults_counted) {
  if (!hotspot) return nullptr;
  json source = SourceToJson(hotspot->source);
  return {{"path", hotspot->path},
          {"phase", hotspot->phase},
          {"op", hotspot->op},
          {"forward_op", hotspot->forward_op},
          {"fused_ops", hotspot->fused_ops},
          {"ms", hotspot->ms},
          {"share", hotspot->share},
          {"module_ms", hotspot->module_ms},
          {"module_share", hotspot->module_share},
          {"source", std::move(source)},
          {"op_lines", OpLinesToJson(hotspot->op_lines)},
          {"lines", SourceLinesToJson(hotspot->lines)},
          {"view_op_us", OrNull(hotspot->view_op_us)},
          {"top_ops", OpsToJson(hotspot->top_ops, gpu_measured, faults_counted)},
          {"confidence", hotspot->confidence},
          {"candidates", hotspot->candidates}};
}

json CrossCheckToJson(const CrossCheck& check) {
  return {{"backward_ops_checked", check.backward_ops_checked},
          {"backward_ops_agreeing", check.backward_ops_agreeing},
          {"backward_ops_without_forward", check.backward_ops_without_forward}};
}

json ModulesToJson(const std::vector<ModuleStats>& modules, bool gpu_measured) {
  json out = json::array();
  for (const ModuleStats& module : modules) {
    out.push_back({{"path", module.path},
                   {"type", module.type},
                   {"measured", module.measured},
                   {"forward_ms", OrNull(module.measured, module.forward_ms)},
                   {"backward_ms", OrNull(module.measured, module.backward_ms)},
                   {"gpu_ms", OrNull(module.measured && gpu_measured, module.gpu_ms)},
                   {"window_step_ms", OrNull(module.window_step_ms > 0, module.window_step_ms)},
                   {"parameters", OrNull(module.parameters)},
                   {"op_types", module.op_types}});
  }
  return out;
}

json GpuToJson(const std::optional<GpuSummary>& gpu) {
  if (!gpu) return nullptr;
  return {{"busy_fraction", gpu->busy_fraction},
          {"kernel_ms", gpu->kernel_ms},
          {"memcpy_ms", gpu->memcpy_ms},
          {"largest_idle_gap_ms", gpu->largest_idle_gap_ms},
          {"kernels_per_step", gpu->kernels_per_step},
          {"tiny_kernel_share", gpu->tiny_kernel_share},
          {"median_kernel_us", gpu->median_kernel_us},
          {"achieved_occupancy", OrNull(gpu->achieved_occupancy)},
          {"sm_efficiency", OrNull(gpu->sm_efficiency)}};
}

json InputStagePieceToJson(const InputStagePiece& piece) {
  return {{"name", piece.name},
          {"kind", piece.kind},
          {"source", SourceToJson(piece.source)},
          {"ms", piece.ms},
          {"share", piece.share},
          {"input_shape", piece.input_shape},
          {"output_shape", piece.output_shape},
          {"dtype", piece.dtype},
          {"input_is_binary", OrNull(piece.input_is_binary)}};
}

json InputStageToJson(const std::optional<InputStageProfile>& stage) {
  if (!stage) return nullptr;
  json pieces = json::array();
  for (const InputStagePiece& piece : stage->pieces) pieces.push_back(InputStagePieceToJson(piece));
  return {{"batch_ms", stage->batch_ms},
          {"batches", stage->batches},
          {"output_shape", stage->output_shape},
          {"output_dtype", stage->output_dtype},
          {"cores", stage->cores},
          {"worker_busy_share", OrNull(stage->worker_busy_share)},
          {"pieces", std::move(pieces)}};
}

json LoaderToJson(const std::optional<LoaderEpochs>& loader) {
  if (!loader) return nullptr;
  return {{"workers", loader->workers},
          {"persistent", loader->persistent},
          {"epoch_batches", OrNull(loader->epoch_batches)},
          {"batches_per_step", loader->batches_per_step},
          {"epochs_seen", loader->epochs_seen},
          {"epoch_start_ms", OrNull(loader->epoch_start_ms)}};
}

json DataToJson(const std::optional<DataWait>& data) {
  if (!data) return nullptr;
  return {{"wait_ms", data->wait_ms},
          {"workers", OrNull(data->workers)},
          {"pin_memory", OrNull(data->pin_memory)},
          {"stage", InputStageToJson(data->stage)},
          {"loader", LoaderToJson(data->loader)}};
}

// A snapshot's or a bisection's peak; fields it cannot tell are left out
// (docs/report-schema.md#memory). The allocator's segments at the peak only a snapshot's history
// shows.
json MemoryPeakToJson(const MemoryPeak& peak, bool snapshot) {
  json by_category = json::object();
  for (const MemoryShare& share : peak.by_category) by_category[share.name] = share.mb;
  json by_user_frame = json::array();
  for (const MemoryShare& share : peak.by_user_frame) {
    by_user_frame.push_back(
        {{"frame", share.name}, {"mb", share.mb}, {"allocations", share.allocations}});
  }
  json out = {{"mb", peak.mb},
              {"time_ms", peak.time_ms},
              {"category", peak.category},
              {"by_category", std::move(by_category)},
              {"by_user_frame", std::move(by_user_frame)}};
  if (snapshot) {
    out["reserved_mb"] = peak.reserved_mb;
    out["fragmentation_mb"] = peak.reserved_mb - peak.mb;
  }
  if (!peak.by_module.empty()) {
    json by_module = json::array();
    for (const MemoryShare& share : peak.by_module) {
      by_module.push_back(
          {{"path", share.name}, {"mb", share.mb}, {"allocations", share.allocations}});
    }
    out["by_module"] = std::move(by_module);
  }
  if (!peak.tied_with.empty()) out["tied_with"] = peak.tied_with;
  if (!peak.phase.empty()) out["phase"] = peak.phase;
  if (!peak.path.empty()) out["path"] = peak.path;
  if (peak.largest_free_block_mb) out["largest_free_block_mb"] = *peak.largest_free_block_mb;
  return out;
}

json ModuleMemoryToJson(const ModuleMemory& module) {
  json out = {{"path", module.path}};
  if (module.kept_for_backward_mb) out["kept_for_backward_mb"] = *module.kept_for_backward_mb;
  if (module.forward_peak_mb) out["forward_peak_mb"] = *module.forward_peak_mb;
  if (module.backward_peak_mb) out["backward_peak_mb"] = *module.backward_peak_mb;
  return out;
}

// The ranges under a memory chart, a snapshot's or a bisection's.
json MemorySpansToJson(const std::vector<MemorySpan>& spans) {
  json out = json::array();
  for (const MemorySpan& span : spans) {
    out.push_back({{"kind", span.kind == MemorySpan::Kind::kPhase ? "phase" : "module"},
                   {"label", span.label},
                   {"depth", span.depth},
                   {"start", span.start_ms},
                   {"end", span.end_ms}});
  }
  return out;
}

json StepMemoryTimelineToJson(const StepMemoryTimeline& timeline) {
  json points = json::array();
  for (const StepMemoryPoint& point : timeline.points) {
    points.push_back({{"time", point.time_ms}, {"mb", point.mb}});
  }
  return {{"step_ms", timeline.step_ms},
          {"categories", timeline.categories},
          {"points", std::move(points)},
          {"spans", MemorySpansToJson(timeline.spans)}};
}

json MemoryHistoryToJson(const MemoryHistory& history) {
  json timeline = json::array();
  for (const MemoryPoint& point : history.timeline) {
    timeline.push_back({{"time", point.time_ms},
                        {"allocated_mb", point.allocated_mb},
                        {"reserved_mb", point.reserved_mb}});
  }
  json spans = MemorySpansToJson(history.spans);
  json ooms = json::array();
  for (const OutOfMemory& oom : history.ooms) {
    ooms.push_back({{"time", oom.time_ms},
                    {"requested_mb", oom.requested_mb},
                    {"device_free_mb", oom.device_free_mb},
                    {"allocated_mb", oom.allocated_mb},
                    {"reserved_mb", oom.reserved_mb}});
  }
  return {{"device", history.device},
          {"events", history.events},
          {"time_unit", history.timed ? "ms" : "event"},
          {"timeline", std::move(timeline)},
          {"spans", std::move(spans)},
          {"ooms", std::move(ooms)},
          {"end_state",
           {{"replayed_mb", history.end_replayed_mb},
            {"segments_mb", history.end_segments_mb},
            {"matches", history.end_replayed_mb == history.end_segments_mb}}}};
}

json MemoryToJson(const std::optional<MemoryStats>& memory) {
  if (!memory) return nullptr;
  json out = {{"peak_allocated_mb", memory->peak_allocated_mb},
              {"peak_reserved_mb", memory->peak_reserved_mb},
              {"device_total_mb", OrNull(DeviceTotalMeasured(*memory), memory->device_total_mb)},
              {"alloc_retries", OrNull(memory->alloc_retries)},
              {"num_device_allocs", memory->num_device_allocs},
              {"tensor_allocs_per_step", OrNull(memory->tensor_allocs_per_step)},
              {"tensor_alloc_mb_per_step", OrNull(memory->tensor_alloc_mb_per_step)}};
  // What a snapshot's history shows; absent where the door has none.
  if (memory->peak) {
    out["peak"] = MemoryPeakToJson(*memory->peak, memory->history.has_value());
    json modules = json::array();
    for (const ModuleMemory& module : memory->modules)
      modules.push_back(ModuleMemoryToJson(module));
    out["modules"] = std::move(modules);
  }
  if (memory->history) out["history"] = MemoryHistoryToJson(*memory->history);
  if (memory->timeline) out["timeline"] = StepMemoryTimelineToJson(*memory->timeline);
  if (memory->growth_mb_per_step) out["growth_mb_per_step"] = *memory->growth_mb_per_step;
  if (memory->growth_source) {
    out["growth_source"] = {{"file", memory->growth_source->file},
                            {"line", memory->growth_source->line},
                            {"text", memory->growth_source->text}};
  }
  return out;
}

json SyncsToJson(const std::vector<SyncSite>& syncs) {
  json out = json::array();
  for (const SyncSite& sync : syncs) {
    out.push_back({{"kind", sync.kind},
                   {"path", sync.path},
                   {"op", sync.op},
                   {"phase", sync.phase},
                   {"count_per_step", sync.count_per_step},
                   {"wait_ms", sync.wait_ms}});
  }
  return out;
}

json CopiesToJson(const std::vector<CopySite>& copies) {
  json out = json::array();
  for (const CopySite& copy : copies) {
    out.push_back({{"path", copy.path},
                   {"op", copy.op},
                   {"phase", copy.phase},
                   {"count_per_step", copy.count_per_step},
                   {"bytes_per_step", copy.bytes_per_step},
                   {"ms", copy.ms},
                   {"pageable", copy.pageable}});
  }
  return out;
}

json ChangeToJson(const std::optional<CodeChange>& change) {
  if (!change) return nullptr;
  return {{"advice", change->advice},
          {"first_line", change->first_line == 0 ? json(nullptr) : json(change->first_line)},
          {"before", change->before},
          {"after", change->after},
          {"cannot_keep", change->cannot_keep}};
}

json FindingsToJson(const std::vector<Finding>& findings) {
  json out = json::array();
  for (const Finding& finding : findings) {
    out.push_back(
        {{"rule", finding.rule},
         {"severity", SeverityName(finding.severity)},
         {"path", finding.path},
         {"op", finding.op},
         {"message", finding.message},
         {"evidence", finding.evidence},
         {"recipe", finding.recipe},
         {"also_recipes", finding.also_recipes},
         {"expected_gain_ms", OrNull(finding.expected_gain_ms)},
         {"expected_saving_mb", OrNull(finding.expected_saving_mb)},
         {"needs_torch", finding.needs_torch.empty() ? json(nullptr) : json(finding.needs_torch)},
         {"source", SourceToJson(finding.source)},
         {"change", ChangeToJson(finding.change)}});
  }
  return out;
}

json BenchmarkToJson(const BenchStats& stats) {
  if (!BenchmarkMeasured(stats)) return nullptr;
  return {{"mean_ms", stats.mean_ms},
          {"median_ms", stats.median_ms},
          {"min_ms", stats.min_ms},
          {"max_ms", stats.max_ms},
          {"samples", stats.samples}};
}

json WorkerSeriesToJson(const std::vector<WorkerCountPoint>& series) {
  json out = json::array();
  for (const WorkerCountPoint& point : series) {
    const bool measured = point.speedup > 0;
    out.push_back({{"workers", point.workers},
                   {"step_ms", OrNull(measured, point.step_ms)},
                   {"speedup", OrNull(measured, point.speedup)},
                   {"samples_per_s", OrNull(point.samples_per_s)},
                   {"status", point.status}});
  }
  return out;
}

json WarmupRoundsToJson(const std::vector<RoundWarmup>& rounds) {
  json out = json::array();
  for (const RoundWarmup& round : rounds) {
    json cache = nullptr;
    if (const std::optional<FxGraphCacheLookups>& lookups = round.fx_graph_cache) {
      cache = {
          {"hits", lookups->hits}, {"misses", lookups->misses}, {"bypasses", lookups->bypasses}};
    }
    out.push_back({{"warmup_s", OrNull(round.warmup_s)}, {"fx_graph_cache", std::move(cache)}});
  }
  return out;
}

json StepPairsToJson(const std::vector<StepPair>& pairs) {
  json out = json::array();
  for (const StepPair& pair : pairs) {
    out.push_back({{"baseline_ms", pair.baseline_ms}, {"candidate_ms", pair.candidate_ms}});
  }
  return out;
}

json FixesToJson(const std::vector<FixResult>& fixes) {
  json out = json::array();
  for (const FixResult& fix : fixes) {
    json numerics = nullptr;
    if (fix.numerics) {
      numerics = {{"max_abs_diff", fix.numerics->max_abs_diff},
                  {"max_rel_diff", fix.numerics->max_rel_diff},
                  {"tolerance", fix.numerics->tolerance},
                  {"checked_in", fix.numerics->checked_in}};
    }
    json code_changes = json::array();
    for (const MethodChange& change : fix.code_changes) {
      code_changes.push_back(
          {{"module_type", change.module_type}, {"method", change.method}, {"diff", change.diff}});
    }
    const bool interval = SpeedupIntervalMeasured(fix);
    // A candidate-only run (after a run that ran out of memory) ran in a process without a round.
    const bool ran = fix.rounds > 0 || (fix.candidate_only && !fix.measured_in.empty());
    const bool timed = fix.rounds > 0 || (fix.candidate_only && BenchmarkMeasured(fix.candidate));
    out.push_back({{"recipe", fix.recipe},
                   {"kind", fix.kind},
                   {"preserves_semantics", fix.preserves_semantics},
                   {"status", fix.status},
                   {"sites", fix.sites},
                   {"baseline", BenchmarkToJson(fix.baseline)},
                   {"candidate", BenchmarkToJson(fix.candidate)},
                   {"speedup", OrNull(SpeedupMeasured(fix), fix.speedup)},
                   {"speedup_low", OrNull(interval, fix.speedup_low)},
                   {"speedup_high", OrNull(interval, fix.speedup_high)},
                   {"speedup_ci_low", OrNull(fix.speedup_ci_low)},
                   {"speedup_ci_high", OrNull(fix.speedup_ci_high)},
                   {"rounds", fix.rounds},
                   {"pairs", StepPairsToJson(fix.pairs)},
                   {"measured_in", ran ? json(fix.measured_in) : json(nullptr)},
                   {"step_statistic", timed ? json(fix.step_statistic) : json(nullptr)},
                   {"numerics", std::move(numerics)},
                   {"peak_memory_mb", OrNull(fix.peak_memory_mb)},
                   {"baseline_peak_memory_mb", OrNull(fix.baseline_peak_memory_mb)},
                   {"loader_wait_ms", OrNull(fix.loader_wait_ms)},
                   {"baseline_loader_wait_ms", OrNull(fix.baseline_loader_wait_ms)},
                   {"epoch_starts", OrNull(fix.epoch_starts)},
                   {"baseline_epoch_starts", OrNull(fix.baseline_epoch_starts)},
                   {"epoch_start_wait_ms", OrNull(fix.epoch_start_wait_ms)},
                   {"baseline_epoch_start_wait_ms", OrNull(fix.baseline_epoch_start_wait_ms)},
                   {"epoch_batches", OrNull(fix.epoch_batches)},
                   {"epoch_start_extra_wait_ms", OrNull(fix.epoch_start_extra_wait_ms)},
                   {"host_lead_ms", OrNull(fix.host_lead_ms)},
                   {"baseline_host_lead_ms", OrNull(fix.baseline_host_lead_ms)},
                   {"epoch_start_cost_ms", OrNull(fix.epoch_start_cost_ms)},
                   {"baseline_epoch_start_cost_ms", OrNull(fix.baseline_epoch_start_cost_ms)},
                   {"host_paced", OrNull(fix.host_paced)},
                   {"baseline_host_paced", OrNull(fix.baseline_host_paced)},
                   {"warmup_s", OrNull(fix.warmup_s)},
                   {"warmup_rounds", WarmupRoundsToJson(fix.warmup_rounds)},
                   {"detail", fix.detail},
                   {"suggested_change", fix.suggested_change},
                   {"code_changes", std::move(code_changes)},
                   {"saved_model", fix.saved_model.empty() ? json() : json(fix.saved_model)},
                   {"worker_series", WorkerSeriesToJson(fix.worker_series)},
                   {"knee_workers", OrNull(fix.knee_workers)}});
  }
  return out;
}

json UnprofiledToJson(const std::optional<UnprofiledSteps>& steps) {
  if (!steps) return nullptr;
  return {{"steps", steps->steps},
          {"step_ms", steps->step_ms},
          {"data_wait_ms", steps->data_wait_ms},
          {"forward_ms", steps->forward_ms},
          {"backward_ms", steps->backward_ms},
          {"optimizer_ms", steps->optimizer_ms}};
}

json DistributedToJson(const std::optional<DistributedSummary>& distributed) {
  if (!distributed) return nullptr;
  json ranks = json::array();
  for (const RankSummary& rank : distributed->ranks) {
    ranks.push_back({{"rank", rank.rank},
                     {"trace", rank.trace},
                     {"step_ms", rank.step_ms},
                     {"forward_ms", rank.forward_ms},
                     {"backward_ms", rank.backward_ms},
                     {"optimizer_ms", rank.optimizer_ms},
                     {"data_wait_ms", OrNull(rank.data_wait_ms)},
                     {"compute_ms", rank.compute_ms},
                     {"comm_ms", rank.comm_ms},
                     {"exposed_comm_ms", rank.exposed_comm_ms},
                     {"late_ms", rank.late_ms},
                     {"wait_ms", rank.wait_ms},
                     {"last_arrivals", rank.last_arrivals},
                     {"unprofiled", UnprofiledToJson(rank.unprofiled)},
                     {"node", OrNull(rank.node)}});
  }
  json nodes = json::array();
  for (const NodeInfo& node : distributed->nodes) {
    nodes.push_back({{"node", node.node},
                     {"host", node.host},
                     {"ranks", node.ranks},
                     {"file", node.file},
                     {"clock_offset_ms", node.clock_offset_ms},
                     {"clock_spread_ms", node.clock_spread_ms},
                     {"clock_samples", node.clock_samples},
                     {"hotspot", node.hotspot}});
  }
  json straggler = nullptr;
  if (const std::optional<Straggler>& s = distributed->straggler) {
    straggler = {{"rank", s->rank},
                 {"late_ms", s->late_ms},
                 {"sure_late_ms", s->sure_late_ms},
                 {"last_share", s->last_share},
                 {"compute_excess_ms", s->compute_excess_ms},
                 {"data_wait_excess_ms", OrNull(s->data_wait_excess_ms)},
                 {"path", s->path},
                 {"path_excess_ms", s->path_excess_ms},
                 {"path_by_wall_time", s->path_by_wall_time},
                 {"op", s->op},
                 {"op_phase", s->op_phase},
                 {"op_excess_ms", s->op_excess_ms},
                 {"pre_backward_excess_ms", OrNull(s->pre_backward_excess_ms)},
                 {"unprofiled_excess_ms", OrNull(s->unprofiled_excess_ms)},
                 {"holds_unprofiled", OrNull(s->holds_unprofiled)}};
  }
  return {{"world_size", distributed->world_size},
          {"backend", distributed->backend},
          {"collectives_matched", distributed->collectives_matched},
          {"collectives_unmatched", distributed->collectives_unmatched},
          {"skew_median_ms", distributed->skew_median_ms},
          {"skew_max_ms", distributed->skew_max_ms},
          {"ranks", std::move(ranks)},
          {"straggler", std::move(straggler)},
          {"nodes", std::move(nodes)}};
}

json TrainingStateToJson(const std::optional<TrainingState>& state) {
  if (!state) return nullptr;
  return {{"parameter_mb", state->parameter_mb},
          {"gradient_mb", state->gradient_mb},
          {"optimizer_state_mb", state->optimizer_state_mb},
          {"wrapper", state->wrapper},
          {"sharding_strategy", state->sharding_strategy},
          {"micro_steps", state->micro_steps},
          {"synced_micro_steps", state->synced_micro_steps}};
}

json AllocatorAtFailureToJson(const std::optional<AllocatorAtFailure>& allocator) {
  if (!allocator) return nullptr;
  return {{"allocated_mb", allocator->allocated_mb},
          {"reserved_mb", allocator->reserved_mb},
          {"fragmentation_mb", allocator->reserved_mb - allocator->allocated_mb},
          {"peak_allocated_mb", allocator->peak_allocated_mb},
          {"device_total_mb", allocator->device_total_mb},
          {"device_free_mb", OrNull(allocator->device_free_mb)},
          {"largest_free_block_mb", OrNull(allocator->largest_free_block_mb)},
          {"alloc_retries", OrNull(allocator->alloc_retries)},
          {"expandable_segments", allocator->expandable_segments}};
}

// What was live at an out-of-memory error, as a peak's is written; a moment, not a history's.
json LiveAtFailureToJson(const std::optional<MemoryPeak>& live) {
  if (!live) return nullptr;
  json out = MemoryPeakToJson(*live, false);
  out.erase("time_ms");
  out.erase("by_user_frame");
  return out;
}

json OutOfMemoryToJson(const std::optional<OutOfMemoryFailure>& failure) {
  if (!failure) return nullptr;
  return {{"message", failure->message},
          {"requested_mb", OrNull(failure->requested_mb)},
          {"steps_done", failure->steps_done},
          {"during", failure->during},
          {"path", failure->path},
          {"phase", failure->phase},
          {"op", failure->op},
          {"source", SourceToJson(failure->source)},
          {"allocator", AllocatorAtFailureToJson(failure->allocator)},
          {"path_note", failure->path_note},
          {"live", LiveAtFailureToJson(failure->live)}};
}

json AbsentToJson(const std::vector<AbsentSection>& absent) {
  json out = json::array();
  for (const AbsentSection& section : absent) {
    out.push_back({{"section", section.section}, {"reason", section.reason}});
  }
  return out;
}

json BroadcastsToJson(const std::vector<BroadcastTemporary>& broadcasts) {
  json out = json::array();
  for (const BroadcastTemporary& temporary : broadcasts) {
    out.push_back({{"path", temporary.path},
                   {"op", temporary.op},
                   {"elements", temporary.elements},
                   {"input_elements", temporary.input_elements},
                   {"reads", temporary.reads},
                   {"ms", temporary.ms},
                   {"share", temporary.share}});
  }
  return out;
}

}  // namespace

json ReportToJson(const RunReport& report) {
  const bool gpu_measured = GpuMeasured(report);
  const bool levels_gpu_measured = LevelsGpuMeasured(report);
  json out = {
      {"schema_version", kReportSchemaVersion},
      {"run", RunToJson(report.run)},
      {"out_of_memory", OutOfMemoryToJson(report.out_of_memory)},
      {"step", StepToJson(report.step, report.data)},
      {"bisection", BisectionToJson(report.levels, report.levels_ranked_by, levels_gpu_measured)},
      {"hotspot", HotspotToJson(report.hotspot, levels_gpu_measured, PageFaultsCounted(report))},
      {"cross_check", CrossCheckToJson(report.cross_check)},
      {"modules", ModulesToJson(report.modules, levels_gpu_measured)},
      {"ops", OpsToJson(report.ops, gpu_measured, PageFaultsCounted(report))},
      {"broadcasts", BroadcastsToJson(report.broadcasts)},
      {"gpu", GpuToJson(report.gpu)},
      {"memory", MemoryToJson(report.memory)},
      {"data", DataToJson(report.data)},
      {"loss", LossToJson(report.loss)},
      {"syncs", SyncsToJson(report.syncs)},
      {"copies", CopiesToJson(report.copies)},
      {"findings", FindingsToJson(report.findings)},
      {"fixes", FixesToJson(report.fixes)},
      {"distributed", DistributedToJson(report.distributed)},
      {"training_state", TrainingStateToJson(report.training_state)},
      {"data_quality", report.data_quality},
      {"absent", AbsentToJson(report.absent)}};
  // Only where torch compiled something: a run without torch.compile has no compiler to report.
  if (report.compile) out["compile"] = CompileJson(*report.compile);
  if (report.compiled_kernels) {
    out["compiled_kernels"] = CompiledKernelsJson(*report.compiled_kernels);
  }
  // How the run ended, said where readers look first: null where it did not fail.
  out["run"]["failure"] = report.out_of_memory ? json("out_of_memory") : json(nullptr);
  // A section the front door could not measure is null, not an empty object; lists stay lists.
  for (const AbsentSection& section : report.absent) {
    auto it = out.find(section.section);
    if (it != out.end() && !it->is_array()) *it = nullptr;
  }
  return out;
}

std::string ReportToJsonText(const RunReport& report) {
  return ReportToJson(report).dump(2, ' ', /*ensure_ascii=*/false,
                                   nlohmann::json::error_handler_t::replace) +
         "\n";
}

}  // namespace advisor
