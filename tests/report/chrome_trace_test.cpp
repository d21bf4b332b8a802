// Writes a small two-thread, two-stream window and reads the JSON back as a viewer would.
#include "engine/report/chrome_trace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor {
namespace {

using nlohmann::json;
using namespace testing;

class ChromeTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One step from t=1'000'000 ns: forward on thread 1, backward on thread 2.
    timeline_.steps = {Step(0, 1'000'000, 1'100'000)};
    timeline_.ops = {
        Op("aten::linear", 1'001'000, 1'010'000, 1, 0, 1),
        Op("aten::addmm", 1'002'000, 1'009'000, 2, 1, 1),
        Op("AddmmBackward0", 1'060'000, 1'070'000, 3, 0, 2, OpScope::kBackward),
    };
    timeline_.ops[0].seq_nr = 17;
    placements_ = {Placed(0, Phase::kForward, "fc"), Placed(0, Phase::kForward, "fc"),
                   Placed(0, Phase::kBackward, "fc")};
    timeline_.markers = {
        MarkerEvent{"fc", MarkerKind::kForwardEnter, 1, 1'000'500},
        MarkerEvent{"fc", MarkerKind::kForwardExit, 1, 1'010'500},
        MarkerEvent{"fc", MarkerKind::kBackwardBegin, 2, 1'059'000},
    };
    // CUDA calls on OS thread 9001 carry thread 1's op ids; 9002's carry none.
    timeline_.api_calls = {Api("cudaLaunchKernel", 1'003'000, 1'003'500, 2, false, 500),
                           Api("cudaLaunchKernel", 1'004'000, 1'004'500, 2, false, 501),
                           Api("cudaStreamSynchronize", 1'099'000, 1'099'900, 0, false, 600)};
    timeline_.api_calls[2].thread = 9002;
    timeline_.kernels = {Kernel(1'005'000, 1'008'000, 2, 7, "gemm"),
                         Kernel(1'008'000, 1'009'000, 2, 7, "bias"),
                         Kernel(1'061'000, 1'065'000, 3, 8, "gemm_grad")};
    timeline_.kernels[0].correlation_id = 500;
    timeline_.kernels[1].correlation_id = 501;
    timeline_.kernels[2].correlation_id = 502;
    timeline_.memcpys = {Memcpy(MemcpyKind::kHostToDevice, 1'001'500, 1'001'800, 1, 4096, true)};
    timeline_.memcpys[0].correlation_id = 499;
    timeline_.probes = {CuptiRecorded()};
  }

  json Written() {
    std::ostringstream out;
    WriteChromeTrace({{"the children of the root", timeline_, placements_}}, out);
    return json::parse(out.str());
  }

  static std::vector<json> Events(const json& trace, const std::string& phase) {
    std::vector<json> events;
    for (const json& event : trace["traceEvents"]) {
      if (event["ph"] == phase) events.push_back(event);
    }
    return events;
  }

  static const json* Find(const json& trace, const std::string& name,
                          const std::string& phase = "X") {
    for (const json& event : trace["traceEvents"]) {
      if (event["ph"] == phase && event.value("name", "") == name) return &event;
    }
    return nullptr;
  }

  // (pid, tid) -> the thread's name, from the metadata events.
  static std::map<std::pair<int, int>, std::string> ThreadNames(const json& trace) {
    std::map<std::pair<int, int>, std::string> names;
    for (const json& event : Events(trace, "M")) {
      if (event["name"] == "thread_name")
        names[{event["pid"], event["tid"]}] = event["args"]["name"];
    }
    return names;
  }

  Timeline timeline_;
  std::vector<OpPlacement> placements_;
};

TEST_F(ChromeTraceTest, NamesTheHostAndGpuProcessesAndTheirTracks) {
  const json trace = Written();
  std::map<int, std::string> processes;
  for (const json& event : Events(trace, "M")) {
    if (event["name"] == "process_name") processes[event["pid"]] = event["args"]["name"];
  }
  EXPECT_EQ(processes[0], "run");
  EXPECT_EQ(processes[100], "window 1: the children of the root");
  EXPECT_EQ(processes[101], "window 1: GPU 0");

  std::set<std::string> names;
  for (const auto& [key, name] : ThreadNames(trace)) names.insert(name);
  for (const char* expected : {"windows", "steps", "thread 1", "thread 2", "thread 1 modules",
                               "thread 2 modules",
                               "CUDA API, OS thread 9002", "stream 7", "stream 8"}) {
    EXPECT_EQ(names.count(expected), 1u) << expected;
  }
}

TEST_F(ChromeTraceTest, OpsCarryTheirPlacementAndTimesStartAtZero) {
  const json trace = Written();
  const json* linear = Find(trace, "aten::linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ((*linear)["cat"], "cpu_op");
  EXPECT_EQ((*linear)["args"]["module"], "fc");
  EXPECT_EQ((*linear)["args"]["phase"], "forward");
  EXPECT_EQ((*linear)["args"]["seq_nr"], 17);
  EXPECT_DOUBLE_EQ((*linear)["ts"].get<double>(), 1.0);  // 1 us after the step began
  EXPECT_DOUBLE_EQ((*linear)["dur"].get<double>(), 9.0);
  const json* backward = Find(trace, "AddmmBackward0");
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ((*backward)["args"]["phase"], "backward");
  EXPECT_FALSE((*backward)["args"].contains("seq_nr")) << "-1 means none";

  double earliest = 1e300;
  for (const json& event : trace["traceEvents"]) {
    if (event.contains("ts")) earliest = std::min(earliest, event["ts"].get<double>());
  }
  EXPECT_DOUBLE_EQ(earliest, 0.0);
}

TEST_F(ChromeTraceTest, CudaCallsJoinTheOpThreadWhoseIdsTheyCarry) {
  const json trace = Written();
  const auto names = ThreadNames(trace);
  const json* linear = Find(trace, "aten::linear");
  const json* launch = Find(trace, "cudaLaunchKernel");
  const json* sync = Find(trace, "cudaStreamSynchronize");
  ASSERT_TRUE(linear && launch && sync);
  EXPECT_EQ(names.at({(*launch)["pid"], (*launch)["tid"]}), "thread 1");
  EXPECT_EQ((*launch)["cat"], "cuda_runtime");
  EXPECT_EQ(names.at({(*sync)["pid"], (*sync)["tid"]}), "CUDA API, OS thread 9002");
}

TEST_F(ChromeTraceTest, ModulesStepsAndPhasesAreSpans) {
  const json trace = Written();
  std::vector<json> modules;
  for (const json& event : Events(trace, "X")) {
    if (event["name"] == "fc") modules.push_back(event);
  }
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_EQ(modules[0]["cat"], "module_forward");
  EXPECT_DOUBLE_EQ(modules[0]["ts"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(modules[0]["dur"].get<double>(), 10.0);
  EXPECT_EQ(modules[1]["cat"], "module_backward");
  EXPECT_TRUE(modules[1]["args"]["end_inferred"].get<bool>()) << "no kBackwardEnd was recorded";

  const json* step = Find(trace, "step 0");
  ASSERT_NE(step, nullptr);
  EXPECT_DOUBLE_EQ((*step)["dur"].get<double>(), 100.0);
  for (const char* phase : {"forward", "backward", "optimizer"}) {
    const json* span = Find(trace, phase);
    ASSERT_NE(span, nullptr) << phase;
    EXPECT_EQ((*span)["tid"], (*step)["tid"]);
  }
}

TEST_F(ChromeTraceTest, GpuWorkSitsOnItsStreamTrack) {
  const json trace = Written();
  const auto names = ThreadNames(trace);
  const json* gemm = Find(trace, "gemm");
  const json* grad = Find(trace, "gemm_grad");
  const json* copy = Find(trace, "Memcpy HtoD (pageable)");
  ASSERT_TRUE(gemm && grad && copy);
  EXPECT_EQ((*gemm)["pid"], 101);
  EXPECT_EQ(names.at({101, (*gemm)["tid"]}), "stream 7");
  EXPECT_EQ(names.at({101, (*grad)["tid"]}), "stream 8");
  EXPECT_EQ((*gemm)["cat"], "kernel");
  EXPECT_EQ((*gemm)["args"]["op"], "aten::addmm");
  EXPECT_EQ((*gemm)["args"]["block"], json::array({128, 1, 1}));
  EXPECT_EQ((*copy)["args"]["bytes"], 4096);
  EXPECT_EQ((*copy)["args"]["op"], "aten::linear");
}

TEST_F(ChromeTraceTest, EveryFlowRunsFromTheLaunchingOpToItsWork) {
  const json trace = Written();
  std::vector<json> starts;
  std::vector<json> finishes;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("cat", "") != "launch") continue;
    (event["ph"] == "s" ? starts : finishes).push_back(event);
  }
  ASSERT_EQ(starts.size(), 4u);  // three kernels and the copy
  ASSERT_EQ(finishes.size(), 4u);
  std::map<std::uint64_t, json> finish_by_id;
  for (const json& finish : finishes) {
    EXPECT_EQ(finish["bp"], "e");
    EXPECT_TRUE(finish_by_id.emplace(finish["id"].get<std::uint64_t>(), finish).second)
        << "ids are unique";
  }
  const json* addmm = Find(trace, "aten::addmm");
  const json* gemm = Find(trace, "gemm");
  for (const json& start : starts) {
    const auto id = start["id"].get<std::uint64_t>();
    ASSERT_EQ(finish_by_id.count(id), 1u) << "flow " << id << " has no end";
    EXPECT_EQ(start["pid"], 100);
    EXPECT_EQ(finish_by_id[id]["pid"], 101);
    if (id == 500) {
      EXPECT_EQ(start["tid"], (*addmm)["tid"]);
      EXPECT_DOUBLE_EQ(start["ts"].get<double>(), 3.0) << "at the launch call";
      EXPECT_EQ(finish_by_id[id]["tid"], (*gemm)["tid"]);
      EXPECT_DOUBLE_EQ(finish_by_id[id]["ts"].get<double>(), (*gemm)["ts"].get<double>());
    }
  }
}

TEST_F(ChromeTraceTest, CompleteEventsNestOnEveryTrack) {
  // Two ops on thread 1 that cross each other, as a clock glitch could make them.
  timeline_.ops.push_back(Op("aten::crossing", 1'008'000, 1'020'000, 4, 0, 1));
  placements_.push_back(Placed(0, Phase::kForward));
  const json trace = Written();
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> by_track;
  for (const json& event : Events(trace, "X")) {
    const double start = event["ts"].get<double>();
    by_track[{event["pid"], event["tid"]}].push_back({start, start + event["dur"].get<double>()});
  }
  for (auto& [track, spans] : by_track) {
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open_ends;
    for (const auto& [start, end] : spans) {
      while (!open_ends.empty() && open_ends.back() <= start) open_ends.pop_back();
      EXPECT_TRUE(open_ends.empty() || end <= open_ends.back() + 1e-9)
          << "track " << track.first << "/" << track.second << " crosses at " << start;
      open_ends.push_back(end);
    }
  }
  std::set<std::string> names;
  for (const auto& [key, name] : ThreadNames(trace)) names.insert(name);
  EXPECT_EQ(names.count("thread 1 (overlap 1)"), 1u);
}

TEST_F(ChromeTraceTest, CarriesTheProbeStatusesAlong) {
  timeline_.probes.push_back(ProbeStatus{"memory", false, "no CUDA", 0});
  const json trace = Written();
  ASSERT_EQ(trace["otherData"]["probes"].size(), 2u);
  EXPECT_EQ(trace["otherData"]["probes"][1]["detail"], "no CUDA");
  EXPECT_EQ(trace["otherData"]["probes"][1]["window"], 1);
  EXPECT_EQ(trace["otherData"]["origin_ns"], 1'000'000);
}

TEST(ChromeTrace, AnEmptyWindowIsStillAValidTrace) {
  std::ostringstream out;
  WriteChromeTrace({{"no module instrumented", Timeline{}, {}}}, out);
  const json trace = json::parse(out.str());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  for (const json& event : trace["traceEvents"]) EXPECT_EQ(event["ph"], "M");
}

TEST_F(ChromeTraceTest, AForwardOpPointsAtTheBackwardNodeItCreated) {
  // aten::linear (seq 17 on thread 1) created AddmmBackward0 (seq 17, forward thread 1).
  timeline_.ops[2].seq_nr = 17;
  timeline_.ops[2].forward_thread = 1;
  placements_[2].top_level = 2;
  const json trace = Written();
  std::vector<json> starts;
  std::vector<json> finishes;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("cat", "") != "autograd" || event["ph"] == "X") continue;
    (event["ph"] == "s" ? starts : finishes).push_back(event);
  }
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_EQ(starts[0]["id"], finishes[0]["id"]);
  EXPECT_GE(starts[0]["id"].get<std::uint64_t>(), std::uint64_t{1} << 32)
      << "apart from the launch arrows' correlation ids";
  const json* linear = Find(trace, "aten::linear");
  const json* backward = Find(trace, "AddmmBackward0");
  EXPECT_EQ(starts[0]["tid"], (*linear)["tid"]);
  EXPECT_DOUBLE_EQ(starts[0]["ts"].get<double>(), (*linear)["ts"].get<double>());
  EXPECT_EQ(finishes[0]["tid"], (*backward)["tid"]);
  EXPECT_DOUBLE_EQ(finishes[0]["ts"].get<double>(), (*backward)["ts"].get<double>());
}

TEST_F(ChromeTraceTest, EveryWindowIsAProcessGroupAtItsOwnTime) {
  // A second window 50 ms after the first, on the same threads.
  Timeline later = timeline_;
  const TimeNs shift = 50'000'000;
  for (StepSpan& step : later.steps) {
    step.start_ns += shift;
    step.end_ns += shift;
    for (PhaseSpan& phase : step.phases) {
      phase.start_ns += shift;
      phase.end_ns += shift;
    }
  }
  for (OpEvent& op : later.ops) {
    op.start_ns += shift;
    op.end_ns += shift;
  }
  later.markers.clear();
  later.kernels.clear();
  later.memcpys.clear();
  later.api_calls.clear();
  std::ostringstream out;
  WriteChromeTrace({{"no module instrumented", timeline_, placements_},
                    {"the children of fc", later, placements_}},
                   out);
  const json trace = json::parse(out.str());

  std::map<int, std::string> processes;
  for (const json& event : Events(trace, "M")) {
    if (event["name"] == "process_name") processes[event["pid"]] = event["args"]["name"];
  }
  EXPECT_EQ(processes[100], "window 1: no module instrumented");
  EXPECT_EQ(processes[200], "window 2: the children of fc");
  std::vector<const json*> linears;
  for (const json& event : trace["traceEvents"]) {
    if (event["ph"] == "X" && event["name"] == "aten::linear") linears.push_back(&event);
  }
  ASSERT_EQ(linears.size(), 2u);
  EXPECT_EQ((*linears[0])["pid"], 100);
  EXPECT_EQ((*linears[1])["pid"], 200);
  EXPECT_DOUBLE_EQ((*linears[1])["ts"].get<double>() - (*linears[0])["ts"].get<double>(), 50'000.0);

  std::vector<json> spans;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("cat", "") == "window") spans.push_back(event);
  }
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0]["name"], "window 1: no module instrumented");
  EXPECT_EQ(spans[0]["pid"], 0);
  EXPECT_DOUBLE_EQ(spans[0]["ts"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(spans[1]["ts"].get<double>(), 50'000.0);
  EXPECT_DOUBLE_EQ(spans[1]["dur"].get<double>(), 100.0);  // its one step
}

TEST_F(ChromeTraceTest, TheWaitForTheBatchIsThePhaseBeforeForward) {
  EXPECT_EQ(Find(Written(), "data"), nullptr) << "no data phase without an input stage";
  // The step starts at 1'000'000; its batch arrives 0.4 ms later.
  const StepSpan& step = timeline_.steps[0];
  timeline_.steps[0] = StepOfPhases(step.index, step.start_ns, 1'000'400,
                                    step.phases[0].end_ns, step.phases[1].end_ns, step.end_ns);
  const json trace = Written();
  const json* data = Find(trace, "data");
  const json* forward = Find(trace, "forward");
  ASSERT_NE(data, nullptr);
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ((*data)["cat"], "phase");
  EXPECT_DOUBLE_EQ((*data)["dur"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ((*forward)["ts"].get<double>(), (*data)["ts"].get<double>() + 0.4);
}

}  // namespace
}  // namespace advisor
