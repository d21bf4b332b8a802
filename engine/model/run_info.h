// What ran: the model or script, the device, the torch, the step's settings, and which front
// door measured it. A section of RunReport (engine/model/run_report.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/door.h"

namespace advisor {

struct RunInfo {
  std::string model;          // path as given
  std::string device;         // "cpu" or "cuda"
  std::string device_name;    // e.g. "NVIDIA H100 80GB HBM3", or the CPU's model name
  std::string torch_version;  // LibTorch that ran the model
  std::string advisor_version;
  int warmup_steps = 0;
  int window_steps = 0;
  int windows = 0;         // profiled windows used, the uninstrumented baseline included
  int site_windows = 0;    // of those, windows that only named the modules of sync/copy sites
  int memory_windows = 0;  // of those, windows that narrowed the memory's holder alone
  // Of those, windows recorded again where a level's or the op's steps did not back its choice
  // (at most two a bisection), and looks into a level's hottest child that the descent then did
  // not enter: neither is a level of the path, and both are more frequent on a busy machine.
  int repeated_windows = 0;
  int look_ahead_windows = 0;
  int batch_size = 0;                 // 0: unknown (a trace does not say)
  std::optional<bool> deterministic;  // absent when the front door cannot tell (a trace)
  std::string dtype;                  // of the first input
  double wall_s = 0;                  // whole run, model load included
  // The workload replays its step as a CUDA graph. A replay hides every op inside it from the
  // probes, so the step is measured and profiled eagerly, and the graphed step is only timed
  // (StepBreakdown::graphed_median_ms).
  bool cuda_graphs = false;
  // The front door that produced the report: kModel, kScript (under a launcher too), kTrace or
  // kSnapshot; report.json and the facts name it (DoorName). Last, so that positional
  // initialisers of the other fields keep their meaning.
  Door mode = Door::kModel;
  // Script mode: the command as given after `--`, and the Python that ran it.
  std::vector<std::string> command;
  std::string python;          // the interpreter's path
  std::string python_version;  // e.g. "3.11.2"
  // The step's CUDA math settings, on a CUDA run where the door can tell (absent otherwise): TF32
  // in float32 matmuls (torch.backends.cuda.matmul.allow_tf32) and cuDNN's benchmark mode. A
  // trace says neither; its GEMM kernels show TF32 where they ran in it (allow_tf32 true).
  std::optional<bool> allow_tf32;
  std::optional<bool> cudnn_benchmark;
  // A CPU model's windows count each top-level op's page faults (first touches of fresh memory)
  // and price them at this cost of one, measured on the host; absent where not counted.
  std::optional<double> page_fault_us;
};

}  // namespace advisor
