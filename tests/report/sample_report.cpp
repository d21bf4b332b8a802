#include "tests/report/sample_report.h"

namespace advisor::testing {

RunReport FilledReport() {
  RunReport report;
  report.run.model = "models/vit_small.pt";
  report.run.device = "cuda";
  report.run.device_name = "NVIDIA H100 80GB HBM3";
  report.run.torch_version = "2.5.1";
  report.run.advisor_version = "0.1.0";
  report.run.warmup_steps = 5;
  report.run.window_steps = 20;
  report.run.windows = 4;
  report.run.site_windows = 1;
  report.run.batch_size = 128;
  report.run.deterministic = true;
  report.run.dtype = "float32";
  report.run.wall_s = 83.27;
  report.step.median_ms = 41.237;
  report.step.timing = StepTiming::kDeviceEvents;
  report.step.min_ms = 40.512;
  report.step.max_ms = 44.9;
  report.step.forward_ms = 12.41;
  report.step.backward_ms = 25.03;
  report.step.optimizer_ms = 2.61;
  report.step.rest_ms = 1.15;
  report.step.profiled_ms = 41.2;  // the profiled median step: the phases above add up to it

  report.levels.push_back({1,
                           "",
                           {{"blocks", 11.2, 22.9, 33.5, 0.917, 12},
                            {"patch_embed", 0.61, 0.92, 1.4, 0.042, 1},
                            {"head", 0.21, 0.33, 0.5, 0.015, 1}},
                           "blocks",
                           "blocks holds 91.7% of the step; instances differ by 4.1x",
                           false});
  report.levels.push_back({2,
                           "blocks",
                           {{"blocks.5", 0.98, 6.02, 6.8, 0.204, 1},
                            {"blocks.4", 0.93, 1.61, 2.4, 0.074, 1},
                            {"blocks.6", 0.92, 1.59, 2.4, 0.073, 1}},
                           "blocks.5",
                           "blocks.5 costs 2.8x its siblings",
                           true});
  report.levels.push_back({3,
                           "blocks.5",
                           {{"blocks.5.mlp", 0.41, 5.02, 5.3, 0.776, 1},
                            {"blocks.5.attn", 0.45, 0.79, 1.1, 0.177, 1},
                            {"blocks.5.norm1", 0.04, 0.07, 0.1, 0.016, 1}},
                           "blocks.5.mlp",
                           "blocks.5.mlp holds 77.6% of blocks.5 and has no child modules",
                           false});

  Hotspot hotspot;
  hotspot.path = "blocks.5.mlp";
  hotspot.phase = "backward";
  hotspot.op = "GatherBackward0";
  hotspot.forward_op = "aten::gather";
  hotspot.ms = 4.731;
  hotspot.share = 0.1147;
  hotspot.module_ms = 5.77;  // within five points of the op's share: no sentence of its own
  hotspot.module_share = 0.14;
  hotspot.source =
      SourceLocation{"code/__torch__/timm/layers/mlp.py", 42, "x = torch.gather(x, 1, index)"};
  hotspot.top_ops = {{"GatherBackward0", "backward", 1, 4.731, 4.52},
                     {"AddmmBackward0", "backward", 2, 0.212, 0.2},
                     {"aten::gather", "forward", 1, 0.118, 0.09}};
  report.hotspot = hotspot;

  report.cross_check = {/*checked=*/412, /*agreeing=*/405, /*without_forward=*/7};

  report.modules = {
      {"blocks",
       "__torch__.torch.nn.modules.container.Sequential",
       11.2,
       22.9,
       33.5,
       true,
       21300000,
       {}, {}},
      {"blocks.5",
       "__torch__.timm.models.vision_transformer.Block",
       0.98,
       6.02,
       6.8,
       true,
       1775000,
       {"aten::layer_norm", "aten::add"}, {}},
      {"blocks.5.mlp",
       "__torch__.timm.layers.mlp.Mlp",
       0.41,
       5.02,
       5.3,
       true,
       1181000,
       {"aten::linear", "aten::gather", "aten::gelu"}, {}},
      {"blocks.5.attn",
       "__torch__.timm.models.vision_transformer.Attention",
       0.45,
       0.79,
       1.1,
       true,
       591000,
       {"aten::linear", "aten::scaled_dot_product_attention"}, {}},
      {"patch_embed",
       "__torch__.timm.layers.patch_embed.PatchEmbed",
       0.61,
       0.92,
       1.4,
       true,
       295000,
       {"aten::conv2d"}, {}},
      {"head",
       "__torch__.torch.nn.modules.linear.Linear",
       0.21,
       0.33,
       0.5,
       true,
       385000,
       {"aten::linear"}, {}},
      {"norm", "__torch__.torch.nn.modules.normalization.LayerNorm", 0, 0, 0, false, 768, {}, {}},
  };
  report.ops = {{"GatherBackward0", "backward", 1, 4.731, 4.52},
                {"aten::addmm", "forward", 48, 3.91, 3.7, 3.05},
                {"AddmmBackward0", "backward", 48, 7.82, 7.4},
                {"aten::_foreach_add_", "optimizer", 1, 1.02, 0.6}};

  GpuSummary gpu;
  gpu.busy_fraction = 0.712;
  gpu.kernel_ms = 29.4;
  gpu.memcpy_ms = 0.81;
  gpu.largest_idle_gap_ms = 3.2;
  gpu.kernels_per_step = 1873;
  gpu.tiny_kernel_share = 0.38;
  gpu.median_kernel_us = 6.4;
  gpu.achieved_occupancy = 0.61;  // sm_efficiency left unmeasured on purpose
  report.gpu = gpu;

  report.syncs = {{"cudaStreamSynchronize", "blocks.5.mlp", "aten::item", "forward", 1, 0.92},
                  {"blocking memcpy D2H", "", "aten::_local_scalar_dense", "optimizer", 1, 0.3}};
  report.copies = {{"", "aten::to", "forward", 2, 77070336, 0.81, true}};
  report.memory = MemoryStats{};
  report.memory->peak_allocated_mb = 10240.5;
  report.memory->peak_reserved_mb = 12288;
  report.memory->device_total_mb = 81559;
  report.memory->alloc_retries = 3;
  report.memory->num_device_allocs = 41;

  // In the order the engine ranks them (RankFindings): the writers keep it.
  report.findings = {
      {"gather-backward-scatter", Severity::kHigh, "blocks.5.mlp", "GatherBackward0",
       "The backward of gather scatters with atomics; index_select is faster here.",
       "GatherBackward0 4.73 ms/step, 11.5% of the step", "gather-to-index-select", 4.1, "", {},
       SourceLocation{"model.py", 42, "x = torch.gather(x, 1, index)"}, std::nullopt, std::nullopt},
      {"host-sync-item", Severity::kMedium, "blocks.5.mlp", "aten::item",
       "A .item() call synchronises the host with the GPU every step.",
       "cudaStreamSynchronize 0.92 ms/step", "drop-item-sync", 0.9, "", {}, std::nullopt,
       std::nullopt, std::nullopt},
      {"tiny-kernels", Severity::kLow, "", "", "38% of kernels run for under 10 us.",
       "1873 kernels/step, median 6.4 us", "", std::nullopt, "", {}, std::nullopt, std::nullopt,
       std::nullopt},
  };

  FixResult verified;
  verified.recipe = "gather-to-index-select";
  verified.kind = "rewrite";
  verified.preserves_semantics = true;
  verified.status = "verified";
  verified.sites = {"blocks.5.mlp"};
  verified.baseline = {41.6, 41.2, 40.5, 44.9, 30};
  verified.candidate = {37.3, 37.1, 36.6, 38.2, 30};
  verified.speedup = 1.111;
  verified.speedup_low = 1.10;
  verified.speedup_high = 1.12;
  verified.speedup_ci_low = 1.09;
  verified.speedup_ci_high = 1.13;
  verified.rounds = 4;
  verified.numerics = Numerics{3.1e-6, 2.4e-5, 1e-4, "processes"};
  verified.peak_memory_mb = 10100;

  FixResult rejected;
  rejected.recipe = "channels-last";
  rejected.kind = "knob";
  rejected.status = "rejected";
  rejected.baseline = {41.6, 41.3, 40.6, 44.1, 30};
  rejected.candidate = {42.4, 42.0, 41.1, 46.3, 30};
  rejected.speedup = 0.983;
  rejected.speedup_low = 0.97;
  rejected.speedup_high = 0.99;
  rejected.speedup_ci_low = 0.96;
  rejected.speedup_ci_high = 0.995;
  rejected.rounds = 8;
  rejected.detail = "slower than the baseline";

  FixResult failed;
  failed.recipe = "drop-item-sync";
  failed.kind = "rewrite";
  failed.status = "failed";
  failed.sites = {"blocks.5.mlp"};
  failed.baseline = {41.4, 41.1, 40.4, 44.0, 30};
  failed.detail = "RuntimeError: the rewritten graph does not type-check";
  report.fixes = {verified, rejected, failed};

  report.data_quality = {"CUPTI dropped 12 activity records in window 2",
                         "rule 'sm-efficiency' skipped: no SM efficiency estimate"};
  return report;
}

RunReport MinimalReport() {
  RunReport report;
  report.run.model = "tiny.pt";
  report.run.device = "cpu";
  report.run.torch_version = "2.5.1";
  report.run.advisor_version = "0.1.0";
  report.run.warmup_steps = 2;
  report.run.window_steps = 10;
  report.run.windows = 1;
  report.run.batch_size = 8;
  report.run.dtype = "float32";
  report.run.wall_s = 3.4;
  report.step.median_ms = 2.5;
  report.step.min_ms = 2.4;
  report.step.max_ms = 2.9;
  report.step.forward_ms = 0.9;
  report.step.backward_ms = 1.3;
  report.step.optimizer_ms = 0.2;
  report.levels.push_back({1,
                           "",
                           {{"linear", 0.8, 1.2, 0, 0.88, 1}},
                           "",
                           "no child holds more than half of the step",
                           false});
  report.modules = {
      {"linear",
       "__torch__.torch.nn.modules.linear.Linear",
       0.8,
       1.2,
       0,
       true,
       4160,
       {"aten::linear"},
       {}},
      {"act", "__torch__.torch.nn.modules.activation.ReLU", 0, 0, 0, false, 0, {}, {}}};
  report.ops = {{"aten::addmm", "forward", 1, 0.7, 0}};
  report.data_quality = {"no GPU: CUPTI probe did not run"};
  return report;
}

RunReport PageFaultReport() {
  RunReport report = MinimalReport();
  report.run.page_fault_us = 1.3;
  report.step.profiled_ms = 2.6;
  report.step.page_fault_ms = 0.9;
  report.ops = {{"ReluBackward0", "backward", 1, 1.2, 0, 1.2, 0.9},
                {"MmBackward0", "backward", 1, 0.8, 0, 0.1, 0}};
  Hotspot hotspot;
  hotspot.path = "body.curriculum";
  hotspot.phase = "backward";
  hotspot.op = "MmBackward0";
  hotspot.ms = 0.8;
  hotspot.share = 0.32;
  hotspot.top_ops = {{"MmBackward0", "backward", 1, 0.8, 0, 0.1, 0},
                     {"ReluBackward0", "backward", 1, 1.2, 0, 1.2, 0.9}};
  report.hotspot = hotspot;
  return report;
}

RunReport SnapshotReport() {
  RunReport report;
  report.run.mode = Door::kSnapshot;
  report.run.model = "runs/snapshot.pickle";
  report.run.device = "cuda";
  report.run.device_name = "cuda:0";
  report.run.advisor_version = "0.1.0";
  report.run.wall_s = 0.8;
  for (const char* section :
       {"step", "bisection", "hotspot", "cross_check", "modules", "ops", "gpu", "data", "fixes"}) {
    report.absent.push_back({section, "an allocator snapshot records memory, not time"});
  }
  MemoryStats memory;
  memory.peak_allocated_mb = 3072.5;
  memory.peak_reserved_mb = 4096;
  memory.num_device_allocs = 7;
  MemoryPeak peak;
  peak.mb = 3072.5;
  peak.time_ms = 41.5;
  peak.phase = "backward";
  peak.path = "blocks.1";
  peak.category = "forward";
  peak.by_category = {{"forward", 2048, 120}, {"before_history", 1000, 80}, {"backward", 24.5, 3}};
  peak.by_user_frame = {{"/home/me/model.py:42 in forward", 1536, 60}};
  peak.reserved_mb = 3584;
  peak.largest_free_block_mb = 300;
  memory.peak = peak;
  ModuleMemory blocks_1;
  blocks_1.path = "blocks.1";
  blocks_1.kept_for_backward_mb = 1024;
  blocks_1.forward_peak_mb = 1100;
  ModuleMemory blocks_0;
  blocks_0.path = "blocks.0";
  blocks_0.forward_peak_mb = 900;
  blocks_0.backward_peak_mb = 12;
  memory.modules = {blocks_1, blocks_0};
  MemoryHistory history;
  history.events = 52000;
  history.timeline = {{0, 1000, 2048}, {20, 2500, 3584}, {41.5, 3072.5, 3584}, {60, 1100, 4096}};
  history.spans = {{MemorySpan::Kind::kPhase, "forward", 0, 0, 30},
                   {MemorySpan::Kind::kModule, "blocks.0", 0, 1, 14},
                   {MemorySpan::Kind::kModule, "blocks.1", 0, 15, 29},
                   {MemorySpan::Kind::kPhase, "backward", 0, 31, 55}};
  history.ooms = {{58, 8192, 100, 1100, 4096}};
  history.end_replayed_mb = 1100;
  history.end_segments_mb = 1100;
  memory.history = history;
  report.memory = memory;
  return report;
}

// A bisection's memory: the peak and its step's live memory, two categories, one instance.
RunReport BisectionMemoryReport() {
  RunReport report = MinimalReport();
  MemoryPeak peak;
  peak.mb = 30;
  peak.time_ms = 6;
  peak.phase = "backward";
  peak.path = "blocks.0.mlp";
  peak.tied_with = {"blocks.1.mlp"};
  peak.by_category = {{"activations", 20, 4}, {"gradients", 10, 2}};
  StepMemoryTimeline timeline;
  timeline.step_ms = 10;
  timeline.categories = {"activations", "gradients"};
  timeline.points = {{0, {0, 0}}, {4, {20, 0}}, {6, {20, 10}}, {10, {0, 10}}};
  timeline.spans = {{MemorySpan::Kind::kPhase, "forward", 0, 0, 5},
                    {MemorySpan::Kind::kPhase, "backward", 0, 5, 9},
                    {MemorySpan::Kind::kModule, "blocks.0.mlp", 0, 1, 3},
                    {MemorySpan::Kind::kModule, "blocks.1.mlp", 0, 3, 4},
                    {MemorySpan::Kind::kModule, "blocks.0.mlp", 0, 7, 8}};
  report.memory.emplace();
  report.memory->peak = peak;
  report.memory->timeline = timeline;
  report.memory->growth_mb_per_step = 1.0;
  report.memory->growth_source = SourceLocation{"train.py", 87, "kept.append(out)"};
  return report;
}

RunReport IdleWorkersReport() {
  RunReport report = FilledReport();
  report.step.mean_ms = 30.0;
  report.data = DataWait{4.1, 2, false, std::nullopt};
  InputStageProfile stage;
  stage.batch_ms = 0.9;
  stage.cores = 2;
  stage.worker_busy_share = 0.03;
  report.data->stage = stage;
  return report;
}

}  // namespace advisor::testing
