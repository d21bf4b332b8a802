// What advisor's probes cost a training step, measured on one model in one process:
//   steady state: step times with no probe, against step times while the op probe (and, on a
//                 GPU, the CUPTI probe) record, in interleaved rounds;
//   window:       the whole cost of a profiled window (start, the steps, stop, collection,
//                 placement and attribution) beyond the same steps unprofiled, against one step.
// Prints one JSON object; bench/overhead.sh runs it beside torch.profiler (docs/benchmarks.md).
// --gpu-probe says what the CUPTI probe records, to measure what each part costs:
//   full (advisor's default), no-driver (no driver API records), no-api (neither runtime nor
//   driver API records, nor synchronisation records), off (the op probe alone).
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/torch/model_archive.h"
#include "engine/torch/profiled_window.h"
#include "engine/torch/training_step.h"
#include "engine/util/median.h"
#include "engine/window/measured_window.h"
#include "probes/cupti/gpu_probe.h"

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: probe_overhead MODEL [--device cpu|cuda] [--steps N] [--rounds R]"
                 " [--gpu-probe full|no-driver|no-api|off]\n";
    return 2;
  }
  std::string device = "";
  std::string gpu_probe = "full";
  int steps = 10;
  int rounds = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--device") device = argv[i + 1];
    if (flag == "--steps") steps = std::stoi(argv[i + 1]);
    if (flag == "--rounds") rounds = std::stoi(argv[i + 1]);
    if (flag == "--gpu-probe") gpu_probe = argv[i + 1];
  }
  advisor::GpuProbeOptions gpu_options;
  if (gpu_probe == "no-driver") {
    gpu_options.driver_api = false;
  } else if (gpu_probe == "no-api") {
    gpu_options.runtime_api = gpu_options.driver_api = gpu_options.synchronization = false;
  } else if (gpu_probe != "full" && gpu_probe != "off") {
    std::cerr << "probe_overhead: --gpu-probe " << gpu_probe
              << ": expected full, no-driver, no-api or off\n";
    return 2;
  }
  try {
    advisor::WorkloadOverrides overrides;
    if (!device.empty()) overrides.device = device;
    const advisor::WorkloadSpec spec =
        advisor::ApplyOverrides(advisor::ReadWorkload(argv[1]), overrides);
    advisor::ApplyGlobalSettings(spec);
    torch::jit::setGraphExecutorOptimize(false);  // as advisor bisect runs it
    advisor::TrainingStep step(advisor::LoadModule(argv[1]), spec);
    std::unique_ptr<advisor::GpuActivityProbe> gpu =
        spec.device == "cuda" && gpu_probe != "off" ? advisor::MakeGpuActivityProbe(gpu_options)
                                                    : nullptr;
    advisor::RunSteps(step, 5, false);  // warm-up, discarded

    std::vector<double> off_ms, on_ms, window_extra_ms, round_ratio;
    for (int round = 0; round < rounds; ++round) {
      const std::vector<double> off = advisor::StepMillis(advisor::RunSteps(step, steps, false));
      const auto window_start = std::chrono::steady_clock::now();
      const bool count_page_faults = spec.device != "cuda";  // as advisor bisect records
      advisor::MeasuredWindow window = advisor::MeasureWindow(
          advisor::RecordWindow(step, steps, gpu.get(), false, count_page_faults));
      const double window_s = SecondsSince(window_start);
      const std::vector<double> on = advisor::StepMillis(window.timeline.steps);
      off_ms.insert(off_ms.end(), off.begin(), off.end());
      on_ms.insert(on_ms.end(), on.begin(), on.end());
      round_ratio.push_back(advisor::Median(on) / advisor::Median(off));
      window_extra_ms.push_back(window_s * 1e3 - steps * advisor::Median(off));
    }
    nlohmann::json result;
    result["model"] = argv[1];
    result["device"] = spec.device;
    result["gpu_probe"] = gpu ? gpu_probe : "off";
    result["steps_per_round"] = steps;
    result["rounds"] = rounds;
    result["off_median_ms"] = advisor::Median(off_ms);
    result["on_median_ms"] = advisor::Median(on_ms);
    result["steady_ratio"] = advisor::Median(on_ms) / advisor::Median(off_ms);
    result["steady_ratio_min"] = *std::min_element(round_ratio.begin(), round_ratio.end());
    result["steady_ratio_max"] = *std::max_element(round_ratio.begin(), round_ratio.end());
    result["window_extra_ms_median"] = advisor::Median(window_extra_ms);
    result["window_extra_ms_max"] =
        *std::max_element(window_extra_ms.begin(), window_extra_ms.end());
    result["window_extra_in_steps"] = advisor::Median(window_extra_ms) / advisor::Median(off_ms);
    if (gpu) result["gpu_probe_status"] = gpu->Status().detail;
    std::cout << result.dump(2) << std::endl;
  } catch (const std::exception& error) {
    std::cerr << "probe_overhead: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
