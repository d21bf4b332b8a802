// The workload's input stage on the models of make_input_stage_models.py: the method's checks,
// batches that depend on (seed, index) only, the data phase in the timeline, facts.data, and the
// numerics of a candidate with workers against the baseline without.
#include "engine/torch/input_stage.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <memory>
#include <stdexcept>

#include "engine/analysis/placement.h"
#include "engine/facts/facts.h"
#include "engine/model_candidate/numerics.h"
#include "engine/model_candidate/step_capture.h"
#include "engine/torch/bisector.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/profiled_window.h"
#include "engine/torch/training_step.h"
#include "tests/torch/input_stage_models.h"

namespace advisor {
namespace {

using testing::StageModelFiles;
using testing::StageModels;

WorkloadSpec StagedSpec(int workers) {
  WorkloadSpec spec = ReadWorkload(StageModels().staged);
  spec.input_stage->workers = workers;
  return spec;
}

// The base host tensors of the staged model's workload: inputs [8, 6], target [8].
std::vector<torch::Tensor> Base() {
  torch::manual_seed(1);
  return {torch::randn({8, 6}), torch::randint(0, 3, {8})};
}

std::vector<std::vector<torch::Tensor>> Batches(int workers, int count,
                                                const std::string& device = "cpu") {
  WorkloadSpec spec = StagedSpec(workers);
  spec.device = device;
  torch::jit::Module module = LoadModule(StageModels().staged);
  InputStage stage(module, spec, Base(), torch::Device(device));
  std::vector<std::vector<torch::Tensor>> batches;
  for (int i = 0; i < count; ++i) batches.push_back(stage.Next());
  return batches;
}

void ExpectSameBatches(const std::vector<std::vector<torch::Tensor>>& expected,
                       const std::vector<std::vector<torch::Tensor>>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(expected[i].size(), actual[i].size());
    for (std::size_t k = 0; k < expected[i].size(); ++k) {
      EXPECT_TRUE(torch::equal(expected[i][k].cpu(), actual[i][k].cpu()))
          << "batch " << i << ", tensor " << k;
    }
  }
}

std::string LoadError(const std::string& path) {
  try {
    LoadModule(path);
  } catch (const ModelError& error) {
    return error.what();
  }
  return "";
}

TEST(InputStage, MethodsThatDoNotFitAreOneLineModelErrors) {
  const StageModelFiles& models = StageModels();
  EXPECT_EQ(LoadError(models.no_method),
            models.no_method +
                ": input_stage.method \"prepare\": the model has no such method; define it on the "
                "model's class with @torch.jit.export (and script the model: tracing drops it)");
  EXPECT_EQ(LoadError(models.one_output),
            models.one_output +
                ": input_stage.method \"prepare_batch\": returns Tensor, expected a tuple of 2 "
                "tensors (the workload's 1 input, then the target)");
  EXPECT_EQ(LoadError(models.rand_like),
            models.rand_like +
                ": input_stage.method \"prepare_batch\": aten::rand_like draws from the "
                "process-wide generator, which advisor cannot seed per batch; draw with "
                "torch.rand/randn/randint/bernoulli instead");
  EXPECT_EQ(LoadError(models.staged), "");
}

TEST(InputStage, BatchesDependOnTheSeedAndTheIndexNotOnTheWorkers) {
  const auto serial = Batches(0, 6);
  ExpectSameBatches(serial, Batches(0, 6));
  ExpectSameBatches(serial, Batches(2, 6));
  ExpectSameBatches(serial, Batches(3, 6));
  EXPECT_FALSE(torch::equal(serial[0][0], serial[1][0])) << "each batch draws its own noise";
  EXPECT_TRUE(torch::equal(serial[0][1], serial[1][1])) << "the target passes through";
  EXPECT_NE(BatchSeed(0, 1), BatchSeed(1, 0));
}

TEST(InputStage, TheStepWaitsForItsBatchInTheDataPhase) {
  for (int workers : {0, 2}) {
    TrainingStep step(LoadModule(StageModels().staged), StagedSpec(workers));
    RunSteps(step, 2, false);
    const Timeline timeline = RecordWindow(step, 3, nullptr, false, false);
    ASSERT_EQ(timeline.steps.size(), 3u);
    for (const StepSpan& span : timeline.steps) {
      ASSERT_FALSE(span.phases.empty());
      EXPECT_EQ(span.phases.front().phase, Phase::kData) << workers << " workers";
      EXPECT_GT(span.TimeIn(Phase::kData), 0) << workers << " workers";
      EXPECT_EQ(span.phases.size(), 4u) << "data, forward, backward, optimizer";
    }
    const OpPlacements placements = PlaceOps(timeline);
    int flips_in_data = 0;
    bool linear_in_forward = false;
    for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
      const std::string& name = timeline.ops[i].name.str();
      if (name == "aten::flip") {
        EXPECT_EQ(placements[i].phase, Phase::kData) << "preparing a batch is never forward";
        ++flips_in_data;
      }
      linear_in_forward |= name == "aten::linear" && placements[i].phase == Phase::kForward;
    }
    // On the step's thread the preparation is recorded; worker threads are not (they run beside
    // the step), and the step's wait for them is the data phase.
    EXPECT_EQ(flips_in_data, workers == 0 ? 3 : 0) << workers << " workers";
    EXPECT_TRUE(linear_in_forward);
  }
}

TEST(InputStage, ReportDataComesFromTheDataPhase) {
  ModelOptions options;
  options.model_path = StageModels().staged;
  BisectSettings settings;
  settings.warmup_steps = 1;
  settings.window_steps = 3;
  settings.max_depth = 1;
  const BisectOutcome outcome = RunBisect(options, settings, [](const std::string&) {});
  const std::optional<DataWait>& data = outcome.report.data;
  ASSERT_TRUE(data.has_value());
  EXPECT_GT(data->wait_ms, 0.0);
  EXPECT_EQ(data->workers, 0);
  EXPECT_EQ(data->pin_memory, false) << "a CPU run pins nothing";

  RunReport report;
  report.step.median_ms = 2 * data->wait_ms;
  report.data = data;
  const nlohmann::json facts = BuildFacts(report);
  EXPECT_DOUBLE_EQ(facts.at("data").at("wait_ms").get<double>(), data->wait_ms);
  EXPECT_DOUBLE_EQ(facts.at("data").at("wait_share").get<double>(), 0.5);
  EXPECT_EQ(facts.at("data").at("workers"), 0);
}

// Every piece, for a failure's message.
std::string Pieces(const InputStageProfile& profile) {
  std::string text;
  for (const InputStagePiece& piece : profile.pieces) {
    text += piece.kind + " " + piece.name + " at " +
            (piece.source ? piece.source->file + ":" + std::to_string(piece.source->line) + " '" +
                                piece.source->text + "'"
                          : "?") +
            " " + std::to_string(piece.ms) + " ms\n";
  }
  return text;
}

const InputStagePiece* FindPiece(const InputStageProfile& profile, const std::string& kind,
                                 const std::string& name) {
  for (const InputStagePiece& piece : profile.pieces) {
    if (piece.kind == kind && piece.name == name) return &piece;
  }
  return nullptr;
}

// masked.pt: prepare_batch's `m = self.dilate(mask)` is the transform, its maxima and rolls of a
// float mask the lines, measured where the batches are made (the step, or the workers).
TEST(InputStage, TheProfileNamesTheTransformItsLineAndItsBinaryInput) {
  for (int workers : {0, 2}) {
    WorkloadSpec spec = ReadWorkload(StageModels().masked);
    spec.input_stage->workers = workers;
    TrainingStep step(LoadModule(StageModels().masked), spec);
    RunSteps(step, 2, false);
    step.StartInputStageProfile();
    RecordWindow(step, 4, nullptr, false, false);
    const std::optional<InputStageProfile> profile = step.StopInputStageProfile();
    ASSERT_TRUE(profile.has_value());
    EXPECT_EQ(profile->batches, 4) << workers << " workers: one a step";
    EXPECT_GT(profile->batch_ms, 0.0);
    EXPECT_EQ(profile->output_shape, (std::vector<long long>{8, 1, 24, 24}));
    EXPECT_EQ(profile->output_dtype, "float32");
    EXPECT_GE(profile->cores, 1);
    EXPECT_EQ(profile->worker_busy_share.has_value(), workers > 0);

    const InputStagePiece* dilate = FindPiece(*profile, "transform", "dilate");
    ASSERT_NE(dilate, nullptr) << workers << " workers\n" << Pieces(*profile);
    ASSERT_TRUE(dilate->source.has_value());
    EXPECT_NE(dilate->source->file.find("make_input_stage_models.py"), std::string::npos)
        << dilate->source->file;
    EXPECT_EQ(dilate->source->text, "m = self.dilate(mask)");
    EXPECT_EQ(dilate->input_shape, (std::vector<long long>{8, 1, 32, 32}));
    EXPECT_EQ(dilate->dtype, "float32");
    EXPECT_EQ(dilate->input_is_binary, true) << "a mask held in float32";
    // The heaviest piece of the batch (a line inside it weighs no more than it; the threshold's
    // and the crop's lines outside it weigh less), not a share of the batch against a fixed bar:
    // load from other processes dilutes every share alike (0.267 against 0.3 beside a build).
    for (const InputStagePiece& piece : profile->pieces) {
      EXPECT_GE(dilate->share, piece.share)
          << piece.kind << " " << piece.name << ": nine maxima and rolls against a threshold and "
          << "a crop\n"
          << Pieces(*profile);
    }

    // The maxima of rolled copies: one line inside the transform, named after its heaviest op.
    const InputStagePiece* heaviest_line = nullptr;
    for (const InputStagePiece& piece : profile->pieces) {
      if (piece.kind == "line" && !heaviest_line) heaviest_line = &piece;
    }
    ASSERT_NE(heaviest_line, nullptr);
    EXPECT_TRUE(heaviest_line->name == "aten::maximum" || heaviest_line->name == "aten::roll")
        << heaviest_line->name;
    EXPECT_EQ(heaviest_line->source->text,
              "out = torch.maximum(out, torch.roll(mask, shifts=[dy, dx], dims=[2, 3]))")
        << "the line inside the transform, in the model author's code";
  }
}

// Workers ahead of the step made this window's batch before it began: the profile measures the
// batch begun in its place, however long it takes after the window.
TEST(InputStage, AWindowShorterThanABatchStillMeasuresOneBatchAStep) {
  WorkloadSpec spec = ReadWorkload(StageModels().masked);
  spec.input_stage->workers = 2;
  TrainingStep step(LoadModule(StageModels().masked), spec);
  RunSteps(step, 2, false);
  step.StartInputStageProfile();
  RecordWindow(step, 1, nullptr, false, false);
  const std::optional<InputStageProfile> profile = step.StopInputStageProfile();
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->batches, 1);
  EXPECT_GT(profile->batch_ms, 0.0);
  EXPECT_NE(FindPiece(*profile, "transform", "dilate"), nullptr) << Pieces(*profile);
}

TEST(InputStage, WithoutAProfileNothingIsMeasured) {
  TrainingStep step(LoadModule(StageModels().staged), StagedSpec(0));
  step.StartInputStageProfile();
  const std::optional<InputStageProfile> profile = step.StopInputStageProfile();
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->batches, 0) << "no batch was made between start and stop";
}

TEST(InputStage, WorkersPreserveTheComputation) {
  torch::jit::Module baseline = LoadModule(StageModels().staged);
  torch::jit::Module candidate = LoadModule(StageModels().staged);
  KeepForwardOutput(baseline);
  KeepForwardOutput(candidate);
  TrainingStep baseline_step(baseline, StagedSpec(0));
  const StepSnapshot expected = CaptureStep(baseline_step);
  TrainingStep candidate_step(candidate, StagedSpec(2));
  const StepSnapshot actual = CaptureStep(candidate_step);
  const NumericsComparison comparison =
      CompareSnapshots(expected, actual, ToleranceClass::kReordering);
  EXPECT_TRUE(comparison.within_tolerance) << comparison.worst;
  EXPECT_EQ(comparison.numerics.max_abs_diff, 0.0) << "the same batch, the same arithmetic";
}

// Runs only where LibTorch sees a GPU (the GPU machine): pinned batches copied non-blocking must
// equal the pageable ones, and a pinned, prefetched stage must feed CUDA steps.
TEST(InputStageCuda, PinnedBatchesEqualPageableOnesOnTheDevice) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto host = Batches(0, 4, "cpu");
  ExpectSameBatches(host, Batches(0, 4, "cuda"));
  WorkloadSpec pinned = StagedSpec(2);
  pinned.device = "cuda";
  pinned.input_stage->pin_memory = true;
  {
    torch::jit::Module module = LoadModule(StageModels().staged);
    InputStage stage(module, pinned, Base(), torch::Device("cuda"));
    std::vector<std::vector<torch::Tensor>> batches;
    for (int i = 0; i < 4; ++i) batches.push_back(stage.Next());
    for (const auto& batch : batches) EXPECT_TRUE(batch.front().is_cuda());
    ExpectSameBatches(host, batches);
  }
  TrainingStep step(LoadModule(StageModels().staged), pinned);
  const std::vector<StepSpan> spans = RunSteps(step, 3, true);
  for (const StepSpan& span : spans) EXPECT_GT(span.TimeIn(Phase::kData), 0);
  EXPECT_TRUE(std::isfinite(step.last_loss()));
}

}  // namespace
}  // namespace advisor
