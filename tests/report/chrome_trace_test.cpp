// Writes a small two-thread, two-stream window and reads the JSON back as a viewer would, and
// checks torch.profiler's (Kineto's) shapes where its readers need them.
#include "engine/report/chrome_trace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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
    SetOps(timeline_, {Op("aten::linear", 1'001'000, 1'010'000, 1, 0, 1),
                       Op("aten::addmm", 1'002'000, 1'009'000, 2, 1, 1),
                       Op("AddmmBackward0", 1'060'000, 1'070'000, 3, 0, 2, OpScope::kBackward)});
    timeline_.SetSequence(0, {17, 0});
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
    WriteChromeTrace({{"the children of the root", timeline_, placements_}}, report_, out);
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

  // The fixture's window as a second window `shift` later records it: its steps, ops, CUDA
  // calls and kernels moved, its copy and markers left out.
  Timeline Later(TimeNs shift) const {
    Timeline later = timeline_;
    const auto move = [&](auto& records) {
      for (auto& record : records) {
        record.start_ns += shift;
        record.end_ns += shift;
      }
    };
    move(later.steps);
    for (StepSpan& step : later.steps) move(step.phases);
    move(later.ops);
    move(later.api_calls);
    move(later.kernels);
    later.memcpys.clear();
    later.markers.clear();
    return later;
  }

  Timeline timeline_;
  OpPlacements placements_;
  RunReport report_;
};

TEST_F(ChromeTraceTest, NamesTheHostAndGpuProcessesAndTheirTracks) {
  const json trace = Written();
  std::map<int, std::string> processes;
  for (const json& event : Events(trace, "M")) {
    if (event["name"] == "process_name") processes[event["pid"]] = event["args"]["name"];
  }
  EXPECT_EQ(processes[99], "run");
  EXPECT_EQ(processes[100], "window 1: the children of the root");
  EXPECT_EQ(processes[0], "GPU 0") << "Kineto's pid for device 0";

  std::set<std::string> names;
  for (const auto& [key, name] : ThreadNames(trace)) names.insert(name);
  for (const char* expected : {"windows", "steps", "thread 1", "thread 2",
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
  EXPECT_EQ((*linear)["args"]["Sequence number"], 17);
  EXPECT_EQ((*linear)["args"]["Fwd thread id"], 0) << "a forward op, as Kineto writes it";
  EXPECT_EQ((*linear)["args"]["External id"], 1) << "the id its GPU work carries";
  EXPECT_DOUBLE_EQ((*linear)["ts"].get<double>(), 1.0);  // 1 us after the step began
  EXPECT_DOUBLE_EQ((*linear)["dur"].get<double>(), 9.0);
  const json* backward = Find(trace, "AddmmBackward0");
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ((*backward)["cat"], "cpu_op") << "Kineto's category for autograd nodes too";
  EXPECT_EQ((*backward)["args"]["phase"], "backward");
  EXPECT_FALSE((*backward)["args"].contains("Sequence number")) << "-1 means none";

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
  // The forward as record_function("fc") writes it, on the thread of the ops inside it.
  EXPECT_EQ(modules[0]["cat"], "user_annotation");
  EXPECT_DOUBLE_EQ(modules[0]["ts"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(modules[0]["dur"].get<double>(), 10.0);
  EXPECT_EQ(modules[0]["tid"], (*Find(trace, "aten::linear"))["tid"]);
  EXPECT_EQ(modules[1]["cat"], "advisor");
  EXPECT_EQ(modules[1]["args"]["kind"], "module backward");
  EXPECT_TRUE(modules[1]["args"]["end_inferred"].get<bool>()) << "no kBackwardEnd was recorded";

  const json* step = Find(trace, "ProfilerStep#0");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ((*step)["cat"], "user_annotation");
  EXPECT_DOUBLE_EQ((*step)["dur"].get<double>(), 100.0);
  for (const char* phase : {"forward", "backward", "optimizer"}) {
    const json* span = Find(trace, phase);
    ASSERT_NE(span, nullptr) << phase;
    EXPECT_EQ((*span)["cat"], "advisor");
    EXPECT_EQ((*span)["args"]["kind"], "phase");
    EXPECT_EQ((*span)["tid"], (*step)["tid"]);
  }
}

// Steps that touch (one ends where the next starts) are written apart, as a reader computes their
// ends: ts + dur in doubles. An H200 run's steps at these times, 0.001 us apart in decimal, read
// as intersecting in TensorBoard's plugin ("ranges on the same thread should not intersect").
TEST_F(ChromeTraceTest, TouchingStepsDoNotIntersectAsAReaderAddsThem) {
  constexpr TimeNs kBase = 1'000'000;  // the first step's start, the trace's zero
  timeline_.steps.push_back(Step(1, kBase + 2'357'591'637, kBase + 2'457'695'110));
  timeline_.steps.push_back(Step(2, kBase + 2'457'695'110, kBase + 2'560'718'178));
  const json trace = Written();
  std::vector<std::pair<double, double>> steps;  // (ts, ts + dur) as a reader adds them
  for (const json& event : Events(trace, "X")) {
    if (event["name"].get<std::string>().rfind("ProfilerStep#", 0) != 0) continue;
    const double ts = event["ts"].get<double>();
    steps.push_back({ts, ts + event["dur"].get<double>()});
  }
  ASSERT_EQ(steps.size(), 3u);
  std::sort(steps.begin(), steps.end());
  EXPECT_DOUBLE_EQ(steps[1].first, 2'357'591.637);
  EXPECT_LE(steps[1].second, steps[2].first);
  EXPECT_NEAR(steps[1].second, steps[2].first, 0.0015) << "1 ns apart, no more";
}

TEST_F(ChromeTraceTest, GpuWorkSitsOnItsStreamTrack) {
  const json trace = Written();
  const auto names = ThreadNames(trace);
  const json* gemm = Find(trace, "gemm");
  const json* grad = Find(trace, "gemm_grad");
  const json* copy = Find(trace, "Memcpy HtoD (Pageable -> Device)");
  ASSERT_TRUE(gemm && grad && copy);
  EXPECT_EQ((*gemm)["pid"], 0);
  EXPECT_EQ(names.at({0, (*gemm)["tid"]}), "stream 7");
  EXPECT_EQ(names.at({0, (*grad)["tid"]}), "stream 8");
  EXPECT_EQ((*gemm)["cat"], "kernel");
  EXPECT_EQ((*gemm)["args"]["op"], "aten::addmm");
  EXPECT_EQ((*gemm)["args"]["block"], json::array({128, 1, 1}));
  EXPECT_EQ((*gemm)["args"]["correlation"], 500);
  EXPECT_EQ((*gemm)["args"]["External id"], 2) << "aten::addmm's";
  EXPECT_EQ((*gemm)["args"]["device"], 0);
  EXPECT_EQ((*grad)["args"]["stream"], 8);
  EXPECT_EQ((*copy)["cat"], "gpu_memcpy");
  EXPECT_EQ((*copy)["args"]["bytes"], 4096);
  EXPECT_EQ((*copy)["args"]["op"], "aten::linear");
}

TEST_F(ChromeTraceTest, AnAc2gFlowRunsFromEachLaunchCallToItsWork) {
  const json trace = Written();
  std::vector<json> starts;
  std::map<std::uint64_t, json> finish_by_id;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("cat", "") != "ac2g") continue;
    if (event["ph"] == "s") starts.push_back(event);
    if (event["ph"] == "f") {
      EXPECT_EQ(event["bp"], "e");
      EXPECT_TRUE(finish_by_id.emplace(event["id"].get<std::uint64_t>(), event).second)
          << "ids are unique";
    }
  }
  // Two kernels had their cudaLaunchKernel recorded; gemm_grad's and the copy's calls were not,
  // so they get no arrow: none is made up.
  ASSERT_EQ(starts.size(), 2u);
  ASSERT_EQ(finish_by_id.size(), 2u);
  const json* launch = Find(trace, "cudaLaunchKernel");
  const json* gemm = Find(trace, "gemm");
  ASSERT_TRUE(launch && gemm);
  for (const json& start : starts) {
    const auto id = start["id"].get<std::uint64_t>();
    ASSERT_EQ(finish_by_id.count(id), 1u) << "flow " << id << " has no end";
    EXPECT_TRUE(id == 500 || id == 501) << "the CUDA correlation id";
    EXPECT_EQ(start["pid"], 100);
    EXPECT_EQ(start["tid"], (*launch)["tid"]);
    EXPECT_EQ(finish_by_id[id]["pid"], 0);
  }
  const json& first = starts[0]["id"] == 500 ? starts[0] : starts[1];
  EXPECT_DOUBLE_EQ(first["ts"].get<double>(), 3.0) << "at the launch call";
  EXPECT_EQ(finish_by_id[500]["tid"], (*gemm)["tid"]);
  EXPECT_DOUBLE_EQ(finish_by_id[500]["ts"].get<double>(), (*gemm)["ts"].get<double>());
}

TEST_F(ChromeTraceTest, CompleteEventsNestOnEveryTrack) {
  // Two ops on thread 1 that cross each other, as a clock glitch could make them.
  AddOp(timeline_, Op("aten::crossing", 1'008'000, 1'020'000, 4, 0, 1));
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
  WriteChromeTrace({{"no module instrumented", Timeline{}, {}}}, RunReport{}, out);
  const json trace = json::parse(out.str());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  for (const json& event : trace["traceEvents"]) EXPECT_EQ(event["ph"], "M");
  EXPECT_EQ(trace["schemaVersion"], 1);
  EXPECT_FALSE(trace.contains("deviceProperties")) << "a CPU run has no device to describe";
  EXPECT_FALSE(trace.contains("distributedInfo")) << "one process";
}

TEST_F(ChromeTraceTest, DescribesTheDevicesTheWorkRanOnWithWhatTheReportKnows) {
  report_.run.device = "cuda";
  report_.run.device_name = "NVIDIA H200";
  report_.memory = MemoryStats{};
  report_.memory->device_total_mb = 1024;
  timeline_.kernels[2].device = 1;
  const json trace = Written();
  EXPECT_EQ(trace["schemaVersion"], 1);
  EXPECT_EQ(trace["baseTimeNanoseconds"], 1'000'000) << "the origin every ts is after";
  ASSERT_EQ(trace["deviceProperties"].size(), 2u);
  EXPECT_EQ(trace["deviceProperties"][0]["id"], 0);
  EXPECT_EQ(trace["deviceProperties"][1]["id"], 1);
  EXPECT_EQ(trace["deviceProperties"][0]["name"], "NVIDIA H200");
  EXPECT_EQ(trace["deviceProperties"][0]["totalGlobalMem"], 1024ll * 1024 * 1024);
  EXPECT_FALSE(trace["deviceProperties"][0].contains("computeMajor")) << "not measured";
  EXPECT_FALSE(trace.contains("distributedInfo"));

  report_.distributed = DistributedSummary{};
  report_.distributed->world_size = 4;
  report_.distributed->backend = "nccl";
  const json job = Written();
  EXPECT_EQ(job["distributedInfo"]["world_size"], 4);
  EXPECT_EQ(job["distributedInfo"]["backend"], "nccl");
  EXPECT_FALSE(job["distributedInfo"].contains("rank")) << "each window is the slowest rank's";
}

TEST_F(ChromeTraceTest, FindingsAndTheHotSpotAreAdvisorsAnnotations) {
  Finding finding;
  finding.rule = "gather-to-index";
  finding.severity = Severity::kHigh;
  finding.path = "fc";
  finding.op = "aten::addmm";
  finding.message = "index instead";
  finding.expected_gain_ms = 1.5;
  report_.findings = {finding};
  report_.hotspot = Hotspot{};
  report_.hotspot->path = "fc";
  report_.hotspot->op = "aten::addmm";
  const json trace = Written();
  std::vector<json> annotations;
  for (const json& event : Events(trace, "i")) annotations.push_back(event);
  ASSERT_EQ(annotations.size(), 2u);
  EXPECT_EQ(annotations[0]["name"], "hot spot: fc -> aten::addmm");
  EXPECT_EQ(annotations[1]["name"], "finding: gather-to-index");
  for (const json& annotation : annotations) {
    EXPECT_EQ(annotation["cat"], "advisor");
    EXPECT_EQ(annotation["s"], "g") << "drawn across the whole trace";
    EXPECT_EQ(annotation["pid"], 99) << "the run's process, not GPU 0's";
  }
  EXPECT_EQ(annotations[1]["args"]["severity"], "high");
  EXPECT_EQ(annotations[1]["args"]["path"], "fc");
  EXPECT_DOUBLE_EQ(annotations[1]["args"]["expected_gain_ms"].get<double>(), 1.5);
}

TEST_F(ChromeTraceTest, AForwardOpPointsAtTheBackwardNodeItCreated) {
  // aten::linear (seq 17 on thread 1) created AddmmBackward0 (seq 17, forward thread 1).
  timeline_.SetSequence(2, {17, 1});
  placements_[2].top_level = 2;
  const json trace = Written();
  std::vector<json> starts;
  std::vector<json> finishes;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("cat", "") != "fwdbwd") continue;
    (event["ph"] == "s" ? starts : finishes).push_back(event);
  }
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_EQ(starts[0]["id"], finishes[0]["id"]);
  EXPECT_GE(starts[0]["id"].get<std::uint64_t>(), std::uint64_t{1} << 32)
      << "apart from the ac2g arrows' correlation ids";
  const json* linear = Find(trace, "aten::linear");
  const json* backward = Find(trace, "AddmmBackward0");
  EXPECT_EQ(starts[0]["tid"], (*linear)["tid"]);
  EXPECT_DOUBLE_EQ(starts[0]["ts"].get<double>(), (*linear)["ts"].get<double>());
  EXPECT_EQ(finishes[0]["tid"], (*backward)["tid"]);
  EXPECT_DOUBLE_EQ(finishes[0]["ts"].get<double>(), (*backward)["ts"].get<double>());
}

TEST_F(ChromeTraceTest, NoTwoWindowsShareACorrelationId) {
  // Each window records with a CUPTI session of its own: the second window's ids start again, so
  // its gemm carries 500 as the first window's does (an H200 trace of seven windows had every
  // id from 1 up in each).
  const Timeline later = Later(50'000'000);
  std::ostringstream out;
  WriteChromeTrace({{"no module instrumented", timeline_, placements_},
                    {"the children of fc", later, placements_}},
                   report_, out);
  const json trace = json::parse(out.str());

  // Each kernel's correlation id is the id of exactly one launch call, in its own window.
  std::map<std::uint64_t, std::vector<int>> launch_pids;  // correlation id -> the calls' windows
  std::vector<std::pair<std::uint64_t, double>> gemms;    // correlation id, ts
  std::set<std::uint64_t> flow_ids;
  int flow_starts = 0;
  for (const json& event : trace["traceEvents"]) {
    const std::string category = event.value("cat", "");
    if (category == "cuda_runtime") {
      launch_pids[event["args"]["correlation"].get<std::uint64_t>()].push_back(event["pid"]);
    }
    if (category == "kernel" && event["name"] == "gemm") {
      gemms.emplace_back(event["args"]["correlation"].get<std::uint64_t>(),
                         event["ts"].get<double>());
    }
    if (category == "ac2g" && event["ph"] == "s") {
      ++flow_starts;
      flow_ids.insert(event["id"].get<std::uint64_t>());
    }
  }
  for (const auto& [id, pids] : launch_pids) {
    EXPECT_EQ(pids.size(), 1u) << "correlation id " << id << " on " << pids.size() << " calls";
  }
  ASSERT_EQ(gemms.size(), 2u);
  std::sort(gemms.begin(), gemms.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_EQ(gemms[0].first, 500u) << "the first window's ids are CUPTI's own";
  ASSERT_EQ(launch_pids.count(gemms[1].first), 1u);
  EXPECT_EQ(launch_pids[gemms[1].first], std::vector<int>{200}) << "the later gemm's launch";
  EXPECT_EQ(flow_starts, 4) << "two launches recorded in each window";
  EXPECT_EQ(flow_ids.size(), 4u) << "one arrow per launch, none merged across windows";
}

TEST_F(ChromeTraceTest, EveryWindowIsAProcessGroupAtItsOwnTime) {
  // A second window 50 ms after the first, on the same threads, without GPU work.
  Timeline later = Later(50'000'000);
  later.kernels.clear();
  later.api_calls.clear();
  std::ostringstream out;
  WriteChromeTrace({{"no module instrumented", timeline_, placements_},
                    {"the children of fc", later, placements_}},
                   report_, out);
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
  EXPECT_EQ((*linears[1])["tid"], (*linears[0])["tid"])
      << "thread 1 is one tid in every window: readers know threads by tid";
  const json* second_step = Find(trace, "ProfilerStep#1");
  ASSERT_NE(second_step, nullptr) << "the trace's steps are numbered in order";
  EXPECT_EQ((*second_step)["pid"], 200);
  EXPECT_EQ((*second_step)["args"]["window_step"], 0) << "the first step of its window";
  EXPECT_DOUBLE_EQ((*linears[1])["ts"].get<double>() - (*linears[0])["ts"].get<double>(), 50'000.0);

  std::vector<json> spans;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("cat", "") == "advisor" && event["args"]["kind"] == "window")
      spans.push_back(event);
  }
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0]["name"], "window 1: no module instrumented");
  EXPECT_EQ(spans[0]["pid"], 99);
  EXPECT_DOUBLE_EQ(spans[0]["ts"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(spans[1]["ts"].get<double>(), 50'000.0);
  EXPECT_DOUBLE_EQ(spans[1]["dur"].get<double>(), 100.0);  // its one step
}

TEST_F(ChromeTraceTest, TheWaitForTheBatchIsThePhaseBeforeForward) {
  EXPECT_EQ(Find(Written(), "data"), nullptr) << "no data phase without an input stage";
  // The step starts at 1'000'000; its batch arrives 0.4 ms later.
  const StepSpan& step = timeline_.steps[0];
  timeline_.steps[0] = StepOfPhases(step.index, step.start_ns, 1'000'400, step.phases[0].end_ns,
                                    step.phases[1].end_ns, step.end_ns);
  const json trace = Written();
  const json* data = Find(trace, "data");
  const json* forward = Find(trace, "forward");
  ASSERT_NE(data, nullptr);
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ((*data)["args"]["kind"], "phase");
  EXPECT_DOUBLE_EQ((*data)["dur"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ((*forward)["ts"].get<double>(), (*data)["ts"].get<double>() + 0.4);
}

}  // namespace
}  // namespace advisor
