#include "engine/torch/bisector.h"

#include <chrono>

#include "engine/torch/torchscript_source.h"
#include "engine/util/median.h"
#include "engine/util/printf.h"
#include "engine/window/measured_window.h"

namespace advisor {

BisectOutcome RunBisect(const ModelOptions& options, const BisectSettings& settings,
                        const Progress& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  TorchScriptSource source({options.model_path, options.overrides, settings.warmup_steps,
                            options.jit_optimize},
                           progress);
  std::optional<double> graphed_ms;
  if (source.Describe().run.cuda_graphs) {
    progress("baseline: timing the step replayed as a CUDA graph, then eagerly");
    graphed_ms = Median(StepMillis(source.TimeGraphedSteps(settings.window_steps)));
  }
  BisectOutcome outcome = RunBisection(source, settings, progress);
  outcome.locate = source.Locator();
  RunReport& report = outcome.report;
  if (graphed_ms) {
    report.step.graphed_median_ms = graphed_ms;
    report.data_quality.push_back(Printf(
        "CUDA graphs: replayed as a graph the step takes %.1f ms; the step time, phases, ops, "
        "levels and GPU summary are of the step run eagerly (%.1f ms), because a replay hides "
        "every op inside it",
        *graphed_ms, report.step.median_ms));
  }
  report.run.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return outcome;
}

}  // namespace advisor
