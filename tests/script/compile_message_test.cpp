// What torch's compiler did, as the probe's replies carry it ("compile"): read into the report's
// section, absent where torch compiled nothing, and anything malformed or oversized refused with
// the field named.
#include "engine/script/compile_message.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace advisor {
namespace {

using nlohmann::json;

json Reply(const json& compile) {
  return {{"type", "window"}, {"steps", json::array()}, {"compile", compile}};
}

json Compile() {
  return {{"graphs", 3},
          {"compilations", 4},
          {"graph_breaks",
           {{{"reason", "Unsupported Tensor.item() call with capture_scalar_outputs=False"},
             {"file", "/home/me/train.py"},
             {"line", 27},
             {"text", "scale = x.abs().max().item()"},
             {"count", 2}}}},
          {"recompiles",
           {{{"function", "forward"},
             {"file", "/home/me/train.py"},
             {"line", 22},
             {"guard", "tensor 'x' size mismatch at index 0. expected 4, actual 6"},
             {"count", 1}}}},
          {"recompile_limit_hits",
           {{{"function", "forward"}, {"file", "/home/me/train.py"}, {"line", 22}, {"limit", 8}}}},
          {"compile_s", 2.5}};
}

std::string CompileError(const json& compile) {
  try {
    ReadCompileReport(Reply(compile));
  } catch (const ProbeMessageError& error) {
    return error.what();
  }
  return "";
}

TEST(CompileMessage, ReadsWhatTheCompilerDid) {
  const std::optional<CompileReport> report = ReadCompileReport(Reply(Compile()));
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->graphs, 3);
  EXPECT_EQ(report->compilations, 4);
  EXPECT_DOUBLE_EQ(report->compile_s, 2.5);
  ASSERT_EQ(report->graph_breaks.size(), 1u);
  EXPECT_EQ(report->graph_breaks[0].reason,
            "Unsupported Tensor.item() call with capture_scalar_outputs=False");
  EXPECT_EQ(report->graph_breaks[0].file, "/home/me/train.py");
  EXPECT_EQ(report->graph_breaks[0].line, 27);
  EXPECT_EQ(report->graph_breaks[0].count, 2);
  EXPECT_EQ(report->graph_breaks[0].text, "scale = x.abs().max().item()");
  ASSERT_EQ(report->recompiles.size(), 1u);
  EXPECT_EQ(report->recompiles[0].function, "forward");
  EXPECT_EQ(report->recompiles[0].line, 22);
  EXPECT_EQ(report->recompiles[0].guard,
            "tensor 'x' size mismatch at index 0. expected 4, actual 6");
  EXPECT_EQ(report->recompiles[0].count, 1);
  ASSERT_EQ(report->recompile_limit_hits.size(), 1u);
  EXPECT_EQ(report->recompile_limit_hits[0].limit, 8);
}

TEST(CompileMessage, ReadsTheRegionalCompilationApart) {
  EXPECT_FALSE(ReadCompileReport(Reply(Compile()))->regional.has_value())
      << "no window looked inside a compiled model";
  json compile = Compile();
  compile["regional"] = {
      {"levels", {"", "blocks.1"}},
      {"compilations", 5},
      {"compile_s", 1.5},
      {"in_measured_steps", 0},
      {"eager", {{{"path", "blocks.2"}, {"reason", "Unsupported: graph_break()"}}}}};
  const std::optional<CompileReport> report = ReadCompileReport(Reply(compile));
  ASSERT_TRUE(report.has_value() && report->regional.has_value());
  const RegionalCompile& regional = *report->regional;
  EXPECT_EQ(regional.levels, (std::vector<std::string>{"", "blocks.1"}));
  EXPECT_EQ(regional.compilations, 5);
  EXPECT_DOUBLE_EQ(regional.compile_s, 1.5);
  EXPECT_EQ(regional.in_measured_steps, 0);
  ASSERT_EQ(regional.eager.size(), 1u);
  EXPECT_EQ(regional.eager[0].path, "blocks.2");
  EXPECT_EQ(regional.eager[0].reason, "Unsupported: graph_break()");
  compile["regional"]["levels"] = json::array();
  EXPECT_NE(CompileError(compile).find("field 'compile.regional.levels' must be an array of 1 "
                                       "to 64 elements"),
            std::string::npos)
      << CompileError(compile);
}

json CudaGraphs() {
  return {{"recordings", 23},
          {"step", 29},
          {"functions",
           {{{"function", "partition_0"},
             {"mode", "forward"},
             {"recordings", 22},
             {"first_step", 1},
             {"later_steps", 21},
             {"rerecordings", 21},
             {"rerecord_reason", "static input data pointer changed."}},
            {{"function", "partition_0"},
             {"mode", "backward"},
             {"recordings", 1},
             {"first_step", 1},
             {"later_steps", 0},
             {"rerecordings", 0},
             {"rerecord_reason", ""}}}},
          {"skipped", {{{"reason", "mutated inputs (1 instances)"}, {"count", 2}}}}};
}

TEST(CompileMessage, ReadsTheCudaGraphs) {
  EXPECT_FALSE(ReadCompileReport(Reply(Compile()))->cuda_graphs.has_value());
  json compile = Compile();
  compile["cuda_graphs"] = nullptr;
  EXPECT_FALSE(ReadCompileReport(Reply(compile))->cuda_graphs.has_value()) << "none captured";
  compile["cuda_graphs"] = CudaGraphs();
  const std::optional<CompileReport> report = ReadCompileReport(Reply(compile));
  ASSERT_TRUE(report.has_value() && report->cuda_graphs.has_value());
  const advisor::CudaGraphs& graphs = *report->cuda_graphs;
  EXPECT_EQ(graphs.recordings, 23);
  EXPECT_EQ(graphs.step, 29);
  ASSERT_EQ(graphs.functions.size(), 2u);
  EXPECT_EQ(graphs.functions[0].function, "partition_0");
  EXPECT_EQ(graphs.functions[0].mode, "forward");
  EXPECT_EQ(graphs.functions[0].recordings, 22);
  EXPECT_EQ(graphs.functions[0].first_step, 1);
  EXPECT_EQ(graphs.functions[0].later_steps, 21);
  EXPECT_EQ(graphs.functions[0].rerecordings, 21);
  EXPECT_EQ(graphs.functions[0].rerecord_reason, "static input data pointer changed.");
  EXPECT_EQ(graphs.functions[1].mode, "backward");
  ASSERT_EQ(graphs.skipped.size(), 1u);
  EXPECT_EQ(graphs.skipped[0].reason, "mutated inputs (1 instances)");
  EXPECT_EQ(graphs.skipped[0].count, 2);
}

TEST(CompileMessage, RefusesCudaGraphsPastTheProbesBounds) {
  json compile = Compile();
  compile["cuda_graphs"] = CudaGraphs();
  compile["cuda_graphs"]["skipped"][0]["reason"] = std::string(kMaxCompileTextBytes + 1, 'x');
  EXPECT_NE(CompileError(compile).find("field 'compile.cuda_graphs.skipped[0].reason' must be a "
                                       "string of at most 400 bytes"),
            std::string::npos)
      << CompileError(compile);
  compile["cuda_graphs"] = CudaGraphs();
  for (std::size_t i = 0; i < kMaxCompileEntries; ++i) {
    compile["cuda_graphs"]["functions"].push_back(CudaGraphs()["functions"][1]);
  }
  EXPECT_NE(CompileError(compile).find("field 'compile.cuda_graphs.functions' must be an array "
                                       "of at most 64 elements"),
            std::string::npos)
      << CompileError(compile);
  compile["cuda_graphs"] = CudaGraphs();
  compile["cuda_graphs"]["functions"][0]["recordings"] = 0;
  EXPECT_EQ(CompileError(compile),
            "probe message \"window\": field 'compile.cuda_graphs.functions[0].recordings' must "
            "be an integer from 1 to 1073741824, got 0");
  compile["cuda_graphs"] = CudaGraphs();
  compile["cuda_graphs"]["functions"][0]["later_steps"] = -1;
  EXPECT_EQ(CompileError(compile),
            "probe message \"window\": field 'compile.cuda_graphs.functions[0].later_steps' must "
            "be an integer from 0 to 1073741824, got -1");
  compile["cuda_graphs"] = CudaGraphs();
  compile["cuda_graphs"].erase("skipped");
  EXPECT_EQ(CompileError(compile),
            "probe message \"window\": field 'compile.cuda_graphs.skipped' is missing");
  compile["cuda_graphs"] = CudaGraphs();
  compile["cuda_graphs"]["functions"][1]["rerecord_reason"] = "line\nbreak";
  EXPECT_NE(CompileError(compile).find("field 'compile.cuda_graphs.functions[1].rerecord_reason' "
                                       "must be a string of at most 400 bytes without control "
                                       "characters"),
            std::string::npos)
      << CompileError(compile);
}

TEST(CompileMessage, IsAbsentWhereTorchCompiledNothing) {
  EXPECT_FALSE(ReadCompileReport(Reply(nullptr)).has_value());
  EXPECT_FALSE(ReadCompileReport({{"type", "steps"}, {"steps", json::array()}}).has_value());
}

TEST(CompileMessage, RefusesWhatDoesNotHoldTogether) {
  EXPECT_EQ(CompileError("compiled"),
            "probe message \"window\": field 'compile' must be an object, got \"compiled\"");
  json bad = Compile();
  bad.erase("graphs");
  EXPECT_EQ(CompileError(bad), "probe message \"window\": field 'compile.graphs' is missing");
  bad = Compile();
  bad["compile_s"] = -1;
  EXPECT_EQ(CompileError(bad),
            "probe message \"window\": field 'compile.compile_s' must be a number >= 0, got -1");
  bad = Compile();
  bad["graph_breaks"][0]["count"] = 0;
  EXPECT_EQ(CompileError(bad),
            "probe message \"window\": field 'compile.graph_breaks[0].count' must be an integer "
            "from 1 to 1073741824, got 0");
  bad = Compile();
  bad["graph_breaks"][0]["text"] = "scale =\n x.item()";
  EXPECT_NE(CompileError(bad).find("field 'compile.graph_breaks[0].text' must be a string of at "
                                   "most 400 bytes without control characters"),
            std::string::npos)
      << CompileError(bad);
  bad = Compile();
  bad["recompiles"][0]["guard"] = "size\nmismatch";
  EXPECT_NE(CompileError(bad).find("field 'compile.recompiles[0].guard' must be a string of at "
                                   "most 400 bytes without control characters"),
            std::string::npos)
      << CompileError(bad);
}

TEST(CompileMessage, RefusesMoreThanTheProbeSends) {
  json long_reason = Compile();
  long_reason["graph_breaks"][0]["reason"] = std::string(kMaxCompileTextBytes + 1, 'x');
  EXPECT_NE(CompileError(long_reason)
                .find("field 'compile.graph_breaks[0].reason' must be a "
                      "string of at most 400 bytes"),
            std::string::npos);
  json many = Compile();
  many["recompiles"] = json::array();
  for (std::size_t i = 0; i <= kMaxCompileEntries; ++i) {
    many["recompiles"].push_back(Compile()["recompiles"][0]);
  }
  EXPECT_NE(CompileError(many).find("field 'compile.recompiles' must be an array of at most 64 "
                                    "elements"),
            std::string::npos)
      << CompileError(many);
}

}  // namespace
}  // namespace advisor
