#include "engine/facts/sample_reports.h"

namespace advisor {

RunReport SampleReportNothingMeasured() {
  RunReport report;
  report.run.model = "sample.pt";
  report.run.device = "cpu";
  report.run.device_name = "Sample CPU";
  report.run.torch_version = "2.4.0";
  report.run.window_steps = 10;
  report.step.median_ms = 40.0;
  report.step.min_ms = 38.0;
  report.step.max_ms = 45.0;
  report.step.forward_ms = 15.0;
  report.step.backward_ms = 20.0;
  report.step.optimizer_ms = 5.0;
  report.ops = {{"aten::addmm", "forward", 4, 8.0, 0.0, 6.5},
                {"AddmmBackward0", "backward", 4, 12.0, 0.0, 2.0}};
  report.modules = {{"", "__torch__.Sample", 0, 0, 0, false, 1000, {}, {}}};
  return report;
}

RunReport SampleReportAllMeasured() {
  RunReport report;
  report.run.model = "sample.pt";
  report.run.device = "cuda";
  report.run.device_name = "NVIDIA H100 80GB HBM3";
  report.run.torch_version = "2.4.0";
  report.run.warmup_steps = 5;
  report.run.window_steps = 10;
  report.run.batch_size = 32;
  report.run.deterministic = true;
  report.run.allow_tf32 = false;
  report.run.cudnn_benchmark = false;
  report.run.dtype = "float32";
  report.step.median_ms = 20.0;
  report.step.mean_ms = 20.4;
  report.step.min_ms = 19.0;
  report.step.max_ms = 24.0;
  report.step.forward_ms = 6.0;
  report.step.backward_ms = 11.0;
  report.step.optimizer_ms = 3.0;
  // A script's loss (the sample's door is a model's, but every optional fact is here once).
  report.step.loss_ms = 1.0;
  SourceLine loss_line;
  loss_line.source = SourceLocation{"train.py", 80, "loss = criterion(out, target)"};
  loss_line.runs = 1;
  loss_line.ops = 3;
  loss_line.op_us = 200;
  loss_line.ms = 1.2;
  loss_line.share = 0.06;
  report.loss = LossCost{1.0, 0.4, 0.07, {loss_line}};

  // Page faults are counted on a CPU run only; the sample has them so that every optional fact
  // exists in it once.
  report.run.page_fault_us = 1.3;
  report.step.page_fault_ms = 0.4;
  const std::vector<OpTime> attention_ops = {{"aten::softmax", "forward", 2, 1.5, 1.2, 1.0, 0.3},
                                             {"aten::matmul", "forward", 4, 2.0, 1.8, 0.1, 0}};
  Hotspot hotspot;
  hotspot.path = "blocks.0.attn";
  hotspot.phase = "backward";
  hotspot.op = "GatherBackward0";
  hotspot.forward_op = "aten::gather";
  hotspot.ms = 6.0;
  hotspot.share = 0.3;
  hotspot.source = SourceLocation{"model.py", 42, "x = torch.gather(x, 1, index)"};
  SourceLine gather_line;
  gather_line.source = *hotspot.source;
  gather_line.runs = 2;
  gather_line.ops = 4;
  gather_line.op_us = 900;
  gather_line.op_kinds = {{"aten::gather", 2, 1500, 0.83}, {"aten::view", 2, 300, 0.17}};
  gather_line.runs_per_call = 1;
  gather_line.ops_per_call = 2;
  gather_line.ms = 6.5;
  gather_line.share = 0.325;
  hotspot.lines = {gather_line};
  hotspot.view_op_us = 1.5;
  hotspot.top_ops = attention_ops;
  report.hotspot = hotspot;

  report.modules = {
      {"", "__torch__.Sample", 19.0, 0, 15.0, true, 1000000, {"prim::CallMethod"}, {}},
      {"blocks.0.attn", "__torch__.Attention", 4.0, 7.0, 9.0, true, 200000,
       {"aten::matmul", "aten::softmax", "aten::transpose", "aten::gather"},
       {{"aten::softmax", 4194304}}},
      {"blocks.0.mlp", "__torch__.Mlp", 2.0, 3.0, 4.0, true, 800000, {"aten::linear"}, {}},
      {"head", "__torch__.Head", 0, 0, 0, false, 1000, {"aten::linear"}, {}},
  };
  report.ops = {{"GatherBackward0", "backward", 2, 6.0, 5.5, 0.2, 0.1},
                {"aten::matmul", "forward", 8, 3.0, 2.6, 0.3, 0.3},
                {"aten::_foreach_add_", "optimizer", 1, 1.0, 0.8}};
  report.broadcasts = {
      {"blocks.0.attn", "aten::sub", 4194304, 65536, {"aten::pow", "aten::sum"}, 2.0, 0.1}};

  GpuSummary gpu;
  gpu.busy_fraction = 0.8;
  gpu.kernel_ms = 15.0;
  gpu.memcpy_ms = 0.5;
  gpu.largest_idle_gap_ms = 1.0;
  gpu.kernels_per_step = 400;
  gpu.tiny_kernel_share = 0.2;
  gpu.median_kernel_us = 25;
  gpu.achieved_occupancy = 0.6;
  gpu.sm_efficiency = 0.8;
  report.gpu = gpu;
  report.syncs = {{"cudaStreamSynchronize", "blocks.0.attn", "aten::item", "forward", 1, 0.2}};
  report.copies = {{"blocks.0.attn", "aten::to", "forward", 1, 4096, 0.05, true}};
  report.memory = MemoryStats{};
  report.memory->peak_allocated_mb = 30000;
  report.memory->peak_reserved_mb = 32000;
  report.memory->device_total_mb = 81559;
  report.memory->alloc_retries = 0;
  report.memory->num_device_allocs = 0;
  report.memory->tensor_allocs_per_step = 120;
  report.memory->tensor_alloc_mb_per_step = 900;
  report.memory->growth_mb_per_step = 0;
  report.memory->modules = {{"blocks.0.attn", 48.0, 64.0, std::nullopt},
                            {"blocks.0.mlp", std::nullopt, 12.0, std::nullopt}};
  report.memory->growth_source = SourceLocation{"train.py", 87, "kept.append(out)"};
  report.data = DataWait{1.0, 2, true, std::nullopt};
  // The unprofiled steps' phases, the data wait among them (facts.data.unprofiled_wait_ms).
  StepPhaseTimes timed;
  timed.data_ms = 0.8;
  timed.forward_ms = 5.8;
  timed.backward_ms = 10.9;
  timed.optimizer_ms = 2.9;
  report.step.timed_phases = timed;
  InputStageProfile stage;
  stage.batch_ms = 8.0;
  stage.batches = 20;
  stage.output_shape = {32, 1, 128, 128};
  stage.output_dtype = "float32";
  stage.cores = 16;
  stage.worker_busy_share = 0.95;
  stage.pieces = {
      {"random_dilation",
       "transform",
       SourceLocation{"model.py", 30, "m = self.random_dilation(m)"},
       6.0,
       0.75,
       {32, 1, 256, 256},
       {32, 1, 256, 256},
       "float32",
       true},
      {"aten::maximum",
       "line",
       SourceLocation{"model.py", 18, "out = torch.maximum(out, s)"},
       5.5,
       0.69,
       {32, 1, 256, 256},
       {32, 1, 256, 256},
       "float32",
       true},
  };
  report.data->stage = stage;
  report.data->loader = LoaderEpochs{2, false, 6, 1.0, 3, 120.0};

  DistributedSummary distributed;
  distributed.world_size = 2;
  distributed.backend = "nccl";
  distributed.collectives_matched = 24;
  distributed.skew_median_ms = 1.5;
  distributed.skew_max_ms = 2.5;
  distributed.ranks = {{0, "rank0.json", 20.0, 6.0, 11.0, 3.0, 1.0, 16.0, 4.0, 2.5, 0.0, 0, 1.5,
                        UnprofiledSteps{10, 18.0, 0.9, 5.5, 10.0, 1.5}, std::nullopt},
                       {1, "rank1.json", 20.1, 7.5, 11.0, 1.5, 1.1, 17.5, 2.2, 0.3, 1.5, 24, 0.0,
                        UnprofiledSteps{10, 18.1, 1.0, 6.9, 8.6, 1.5}, std::nullopt}};
  Straggler straggler;
  straggler.rank = 1;
  straggler.late_ms = 1.5;
  straggler.sure_late_ms = 1.3;
  straggler.last_share = 1.0;
  straggler.compute_excess_ms = 1.5;
  straggler.data_wait_excess_ms = 0.1;
  straggler.path = "blocks.0.mlp";
  straggler.path_excess_ms = 1.4;
  straggler.op = "aten::mm";
  straggler.op_phase = "forward";
  straggler.op_excess_ms = 1.3;
  straggler.pre_backward_excess_ms = 1.6;
  straggler.unprofiled_excess_ms = 1.5;
  straggler.holds_unprofiled = true;
  distributed.straggler = straggler;
  report.distributed = distributed;
  report.training_state = TrainingState{330.0, 330.0, 660.0, "DistributedDataParallel", "", 2, 2};
  report.compile = CompileReport{
      3,
      4,
      {{"Unsupported Tensor.item() call with capture_scalar_outputs=False", "train.py", 27, 2,
        "scale = x.abs().max().item()"}},
      {{"forward", "train.py", 22, "tensor 'x' size mismatch at index 0. expected 4, actual 6", 1}},
      {{"forward", "train.py", 22, 8}},
      6.5,
      std::nullopt,
      CudaGraphs{23,
                 29,
                 {{"partition_0", "forward", 22, 1, 21, 21, "static input data pointer changed."}},
                 {{"mutated inputs (1 instances)", 1}}}};
  OutOfMemoryFailure failure;
  failure.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
  failure.requested_mb = 2048;
  failure.steps_done = 3;
  failure.during = "timing 5 steps";
  failure.path = "blocks.0.mlp";
  failure.phase = "forward";
  failure.op = "forward: return self.fc2(self.act(self.fc1(x)))";
  failure.source = SourceLocation{"train.py", 41, "x = block(x)"};
  failure.allocator = AllocatorAtFailure{70000, 76000, 71000, 81559, 900.0, 1500.0, 2, false};
  failure.kept_for_backward = {{"blocks.0.mlp", 4096, 3}, {"blocks.1.mlp", 4096, 3}};
  failure.live = LiveAtFailure(failure, report.training_state);
  report.out_of_memory = failure;
  return report;
}

}  // namespace advisor
