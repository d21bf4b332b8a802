#include "engine/autotest/candidate_result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::string& json) {
  try {
    ParseCandidateResult(json, "r.json");
  } catch (const CandidateResultError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(CandidateResult, ParsesTheContract) {
  const CandidateResult result = ParseCandidateResult(
      R"({"step_ms": [41.5, 40.25], "peak_memory_mb": 812.5, "samples_per_step": 128,
          "loss": 6.9, "sites": ["patch_drop"]})",
      "r.json");
  EXPECT_EQ(result.step_ms, (std::vector<double>{41.5, 40.25}));
  EXPECT_EQ(result.peak_memory_mb, 812.5);
  EXPECT_EQ(result.samples_per_step, 128);
  EXPECT_EQ(result.loss, 6.9);
  EXPECT_EQ(result.sites, std::vector<std::string>{"patch_drop"});
  EXPECT_TRUE(result.skipped.empty());
}

TEST(CandidateResult, NullMeansUnknownMemoryAndNonFiniteLoss) {
  const CandidateResult result = ParseCandidateResult(
      R"({"step_ms": [1], "peak_memory_mb": null, "samples_per_step": 1, "loss": null})", "r.json");
  EXPECT_FALSE(result.peak_memory_mb.has_value());
  EXPECT_FALSE(result.loss.has_value());
}

TEST(CandidateResult, SkippedNeedsOnlyTheReason) {
  EXPECT_EQ(
      ParseCandidateResult(R"({"skipped": "not applicable: no convolution"})", "r.json").skipped,
      "not applicable: no convolution");
  EXPECT_THAT(ErrorOf(R"({"skipped": ""})"),
              HasSubstr("r.json: field 'skipped' must be a non-empty string, got \"\""));
}

// A run that ran out of memory says where, and nothing else: no steps were timed.
TEST(CandidateResult, OutOfMemoryNeedsOnlyWhere) {
  testing::ScratchDir dir;
  CandidateResult written;
  written.out_of_memory = "in the forward pass of 1 at train.py:34: CUDA out of memory.";
  WriteCandidateResult(dir / "result.json", written);
  const CandidateResult read = ReadCandidateResult(dir / "result.json");
  EXPECT_EQ(read.out_of_memory, written.out_of_memory);
  EXPECT_TRUE(read.step_ms.empty());
  EXPECT_THAT(ErrorOf(R"({"out_of_memory": ""})"),
              HasSubstr("r.json: field 'out_of_memory' must be a non-empty string, got \"\""));
}

TEST(CandidateResult, MalformedResultsAreErrorsNamingTheField) {
  EXPECT_THAT(ErrorOf("garbage"), HasSubstr("r.json: not valid JSON"));
  // A number beyond double (the fuzz corpus's bad.json) ended advisor with an uncaught exception.
  EXPECT_THAT(ErrorOf(R"({"step_ms": [1e999]})"),
              HasSubstr("r.json: field 'step_ms[0]' must be a number a double can hold"));
  EXPECT_THAT(
      ErrorOf(R"({"step_ms": [], "peak_memory_mb": null, "samples_per_step": 1, "loss": 1})"),
      HasSubstr("r.json: field 'step_ms' must be a non-empty array, got []"));
  EXPECT_THAT(ErrorOf(R"({"step_ms": [1, -2], "peak_memory_mb": null, "samples_per_step": 1,
                          "loss": 1})"),
              HasSubstr("r.json: field 'step_ms[1]' must be a number > 0, got -2"));
  EXPECT_THAT(ErrorOf(R"({"step_ms": [1], "peak_memory_mb": null, "loss": 1})"),
              HasSubstr("r.json: field 'samples_per_step' is missing"));
  EXPECT_THAT(ErrorOf(R"({"step_ms": [1], "samples_per_step": 1, "loss": 1})"),
              HasSubstr("r.json: field 'peak_memory_mb' is missing"));
  EXPECT_THAT(ErrorOf(R"({"step_ms": [1], "peak_memory_mb": null, "samples_per_step": 1,
                          "loss": "nan"})"),
              HasSubstr("r.json: field 'loss' must be a number, got \"nan\""));
}

TEST(CandidateResult, InductorsCacheLookupsAreCountsOrNull) {
  const std::string steps = R"("step_ms": [1], "peak_memory_mb": null, "samples_per_step": 1,
                               "loss": 1, )";
  const CandidateResult cached = ParseCandidateResult(
      "{" + steps + R"("fx_graph_cache": {"hits": 4, "misses": 0, "bypasses": 1}})", "r.json");
  ASSERT_TRUE(cached.fx_graph_cache);
  EXPECT_EQ(cached.fx_graph_cache->hits, 4);
  EXPECT_EQ(cached.fx_graph_cache->misses, 0);
  EXPECT_EQ(cached.fx_graph_cache->bypasses, 1);
  EXPECT_FALSE(
      ParseCandidateResult("{" + steps + R"("fx_graph_cache": null})", "r.json").fx_graph_cache)
      << "nothing compiled with inductor";
  EXPECT_THAT(ErrorOf("{" + steps + R"("fx_graph_cache": {"hits": -1, "misses": 0,
                                                          "bypasses": 0}})"),
              HasSubstr("r.json: field 'fx_graph_cache.hits'"));
  EXPECT_THAT(ErrorOf("{" + steps + R"("fx_graph_cache": [1]})"),
              HasSubstr("r.json: field 'fx_graph_cache'"));
}

TEST(CandidateResult, AMissingFileSaysTheWorkerWroteNone) {
  testing::ScratchDir dir;
  try {
    ReadCandidateResult(dir / "absent.json");
    FAIL() << "read a file that does not exist";
  } catch (const CandidateResultError& error) {
    EXPECT_EQ(std::string(error.what()), dir / "absent.json" + ": the worker wrote no result file");
  }
}

// A link planted at the temporary name must not make the worker overwrite the file it points at.
TEST(CandidateResult, TheWriterNeverFollowsALinkAtItsTemporaryName) {
  testing::ScratchDir dir;
  const std::string victim = dir / "victim";
  std::ofstream(victim) << "precious";
  ASSERT_EQ(symlink(victim.c_str(), (dir / "result.json.partial").c_str()), 0);
  CandidateResult result;
  result.skipped = "not applicable";
  EXPECT_THROW(WriteCandidateResult(dir / "result.json", result), std::runtime_error);
  std::ifstream read_back(victim);
  std::string text;
  read_back >> text;
  EXPECT_EQ(text, "precious");
}

TEST(NumericsResultFile, RoundTripsAndRejectsAMalformedFile) {
  testing::ScratchDir dir;
  NumericsResult written;
  written.within_tolerance = false;
  written.numerics = {0.25, 0.5, 1e-4, ""};
  written.worst = "grad of fc.weight: relative difference 5.0e-01";
  written.compared = 7;
  written.sites = {"blocks.0.select"};
  WriteNumericsResult(dir / "numerics.json", written);
  const NumericsResult read = ReadNumericsResult(dir / "numerics.json");
  EXPECT_FALSE(read.within_tolerance);
  EXPECT_EQ(read.numerics.max_abs_diff, 0.25);
  EXPECT_EQ(read.numerics.max_rel_diff, 0.5);
  EXPECT_EQ(read.numerics.tolerance, 1e-4);
  EXPECT_EQ(read.worst, written.worst);
  EXPECT_EQ(read.compared, 7);
  EXPECT_EQ(read.sites, written.sites);

  std::ofstream(dir / "bad.json") << R"({"within_tolerance": "yes"})";
  try {
    ReadNumericsResult(dir / "bad.json");
    FAIL() << "a malformed file was accepted";
  } catch (const CandidateResultError& error) {
    EXPECT_EQ(std::string(error.what()),
              dir / "bad.json" + ": field 'within_tolerance' must be true or false, got \"yes\"");
  }
}

}  // namespace
}  // namespace advisor
