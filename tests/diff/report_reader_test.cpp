#include "engine/diff/report_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "engine/json_input/json_input_error.h"
#include "engine/report/json_writer.h"
#include "tests/diff/diff_reports.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using nlohmann::json;

class ReportReaderTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    const std::string path = scratch_ / "report.json";
    std::ofstream(path) << text;
    return path;
  }

  // The error reading `text` gives: one line naming the file.
  std::string ErrorOf(const std::string& text) {
    const std::string path = Write(text);
    try {
      ReadReportJson(path);
    } catch (const JsonInputError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      return message;
    }
    ADD_FAILURE() << "no error for " << text.substr(0, 80);
    return "";
  }

  testing::ScratchDir scratch_;
};

TEST_F(ReportReaderTest, ReadsWhatTheWriterWrote) {
  RunReport written = testing::BeforeReport();
  written.modules[3].window_step_ms = 104.5;
  const RunReport read = ReadReportJson(Write(ReportToJsonText(written)));
  EXPECT_EQ(read.run.mode, Door::kScript);
  EXPECT_EQ(read.step.samples_ms, written.step.samples_ms);
  EXPECT_DOUBLE_EQ(read.step.median_ms, 100);
  EXPECT_DOUBLE_EQ(read.step.backward_ms, 60);
  EXPECT_FALSE(read.step.loss_ms);
  ASSERT_EQ(read.modules.size(), written.modules.size());
  EXPECT_EQ(read.modules[3].path, "blocks.1");
  EXPECT_TRUE(read.modules[3].measured);
  EXPECT_DOUBLE_EQ(read.modules[3].backward_ms, 36);
  EXPECT_DOUBLE_EQ(read.modules[3].window_step_ms, 104.5);
  EXPECT_FALSE(read.modules[1].measured);               // blocks: null times
  EXPECT_DOUBLE_EQ(read.modules[0].window_step_ms, 0);  // null: its window unknown
  ASSERT_EQ(read.ops.size(), 4u);
  EXPECT_DOUBLE_EQ(read.ops[0].self_ms, 24);
  ASSERT_TRUE(read.hotspot);
  EXPECT_EQ(read.hotspot->op, "GatherBackward0");
  ASSERT_EQ(read.findings.size(), 3u);
  EXPECT_EQ(read.findings[0].severity, Severity::kHigh);
  ASSERT_EQ(read.fixes.size(), 1u);
  EXPECT_DOUBLE_EQ(read.fixes[0].speedup, 1.4);
}

TEST_F(ReportReaderTest, ReadsTheDevicesTimesAndTheUnprofiledStepsPhases) {
  RunReport written = testing::BeforeReport();
  written.levels_ranked_by = "device";
  written.gpu = GpuSummary{};
  written.gpu->kernel_ms = 90.5;
  written.gpu->memcpy_ms = 1.25;
  written.ops[0].gpu_ms = 24;
  written.ops[0].self_gpu_ms = 3.5;
  StepPhaseTimes timed;
  timed.forward_ms = 29;
  timed.loss_ms = 1.5;
  timed.backward_ms = 61;
  timed.optimizer_ms = 7.5;
  timed.rest_ms = 1;
  written.step.timed_phases = timed;
  const RunReport read = ReadReportJson(Write(ReportToJsonText(written)));
  EXPECT_EQ(read.levels_ranked_by, "device");
  ASSERT_TRUE(read.gpu);
  EXPECT_DOUBLE_EQ(read.gpu->kernel_ms, 90.5);
  EXPECT_DOUBLE_EQ(read.gpu->memcpy_ms, 1.25);
  ASSERT_TRUE(read.ops[0].self_gpu_ms);
  EXPECT_DOUBLE_EQ(*read.ops[0].self_gpu_ms, 3.5);
  ASSERT_TRUE(read.step.timed_phases);
  EXPECT_FALSE(read.step.timed_phases->data_ms);  // no data section: its wait is in the rest
  EXPECT_EQ(read.step.timed_phases->loss_ms, 1.5);
  EXPECT_DOUBLE_EQ(read.step.timed_phases->backward_ms, 61);
  EXPECT_DOUBLE_EQ(read.step.timed_phases->rest_ms, 1);
}

TEST_F(ReportReaderTest, AReportBeforeTheDevicesTimesAndTimedPhasesHasNone) {
  // BeforeReport ran without a GPU probe: self_gpu_ms is null, as gpu_ms.
  json report = ReportToJson(testing::BeforeReport());
  EXPECT_TRUE(report["ops"][0]["self_gpu_ms"].is_null());
  EXPECT_FALSE(ReadReportJson(Write(report.dump())).ops[0].self_gpu_ms);
  // An advisor before the fields wrote neither.
  for (json& op : report["ops"]) op.erase("self_gpu_ms");
  for (json& module : report["modules"]) module.erase("window_step_ms");
  report["step"].erase("timed_phases_ms");
  report["gpu"] = {{"kernel_ms", 90}, {"memcpy_ms", 1}, {"busy_fraction", 0.9}};
  report["bisection"]["ranked_by"] = "device";
  const RunReport read = ReadReportJson(Write(report.dump()));
  EXPECT_FALSE(read.ops[0].self_gpu_ms);
  EXPECT_FALSE(read.step.timed_phases);
  EXPECT_EQ(read.levels_ranked_by, "device");
  EXPECT_DOUBLE_EQ(read.modules[0].window_step_ms, 0);
}

TEST_F(ReportReaderTest, ARulesMessageKeepsItsNewlines) {
  RunReport report = testing::BeforeReport();
  report.findings[0].message = "first line\nsecond line";
  EXPECT_EQ(ReadReportJson(Write(ReportToJsonText(report))).findings[0].message,
            "first line\nsecond line");
}

TEST_F(ReportReaderTest, AReportWithoutStepSamplesIsRead) {
  json report = ReportToJson(testing::BeforeReport());
  report["step"].erase("samples_ms");
  EXPECT_TRUE(ReadReportJson(Write(report.dump())).step.samples_ms.empty());
}

TEST_F(ReportReaderTest, RefusesABadReportInOneLineNamingTheField) {
  const json good = ReportToJson(testing::BeforeReport());
  EXPECT_NE(ErrorOf("{\"schema_version\": 1,").find("not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("[1, 2]").find("top level"), std::string::npos);

  json wrong_version = good;
  wrong_version["schema_version"] = 2;
  EXPECT_NE(ErrorOf(wrong_version.dump()).find("'schema_version'"), std::string::npos);

  json no_step = good;
  no_step.erase("step");
  EXPECT_NE(ErrorOf(no_step.dump()).find("field 'step' is missing"), std::string::npos);

  json snapshot = good;
  snapshot["step"] = nullptr;
  EXPECT_NE(ErrorOf(snapshot.dump()).find("snapshot"), std::string::npos);

  json negative = good;
  negative["step"]["median_ms"] = -3;
  EXPECT_NE(ErrorOf(negative.dump()).find("'step.median_ms'"), std::string::npos);

  json text_time = good;
  text_time["modules"][2]["forward_ms"] = "fast";
  EXPECT_NE(ErrorOf(text_time.dump()).find("'modules[2].forward_ms'"), std::string::npos);

  json bad_severity = good;
  bad_severity["findings"][0]["severity"] = "dire";
  EXPECT_NE(ErrorOf(bad_severity.dump()).find("'findings[0].severity'"), std::string::npos);

  json bad_ranking = good;
  bad_ranking["bisection"]["ranked_by"] = "wall";
  EXPECT_NE(ErrorOf(bad_ranking.dump()).find("'bisection.ranked_by'"), std::string::npos);

  json bad_phase = good;
  bad_phase["step"]["timed_phases_ms"] = {{"data", nullptr}, {"forward", -1}};
  EXPECT_NE(ErrorOf(bad_phase.dump()).find("'step.timed_phases_ms.forward'"), std::string::npos);

  json control = good;
  control["modules"][0]["path"] = "a\x1b[2Jb";
  EXPECT_NE(ErrorOf(control.dump()).find("'modules[0].path'"), std::string::npos);

  EXPECT_NE(ErrorOf(std::string(100, '[') + std::string(100, ']')).find("nested deeper"),
            std::string::npos);
}

TEST_F(ReportReaderTest, AMissingFileIsOneLine) {
  const std::string path = scratch_ / "absent.json";
  try {
    ReadReportJson(path);
    FAIL() << "read a missing file";
  } catch (const JsonInputError& error) {
    EXPECT_EQ(std::string(error.what()), path + ": no such file");
  }
}

}  // namespace
}  // namespace advisor
