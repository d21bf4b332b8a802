// The timeline as the probe sends it: everything survives the trip, and what a broken or hostile
// probe sends is refused with the field named.
#include "engine/script/timeline_codec.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

using nlohmann::json;

Timeline Sample() {
  Timeline timeline;
  OpEvent gather;  // its fields named, not placed: OpEvent's order has changed before
  gather.name = "aten::gather";
  gather.scope = OpScope::kForward;
  gather.thread = 7;
  gather.start_ns = 100;
  gather.end_ns = 200;
  timeline.ops.push_back(gather);
  timeline.SetCorrelation(0, 9);
  timeline.SetSequence(0, {42, 0});
  timeline.SetCounts(0, {2048, 4096, 65536});
  OpEvent node;
  node.name = "GatherBackward0";
  node.scope = OpScope::kBackward;
  node.depth = 1;
  node.thread = 8;
  node.start_ns = 300;
  node.end_ns = 400;
  timeline.ops.push_back(node);
  timeline.SetSequence(1, {42, 7});
  timeline.markers.push_back({"blocks.3.mlp", MarkerKind::kBackwardBegin, 8, 290});
  KernelEvent kernel;
  kernel.name = "void gather_kernel<float>";
  kernel.start_ns = 150;
  kernel.end_ns = 160;
  kernel.grid[0] = 80;
  kernel.block[0] = 256;
  kernel.external_id = 9;
  timeline.kernels.push_back(kernel);
  timeline.memcpys.push_back({MemcpyKind::kHostToDevice, 4096, true, 0, 7, 110, 120, 3, 9});
  timeline.memsets.push_back({64, 0, 7, 130, 131, 4, 9});
  timeline.syncs.push_back({SyncKind::kStream, 7, 140, 145, 5, 9});
  timeline.api_calls.push_back({"cudaLaunchKernel", false, 7, 149, 151, 6, 9});
  timeline.probes.push_back({"cupti", true, "", 2});
  timeline.page_fault_ns = 1300.5;
  return timeline;
}

TEST(TimelineCodec, EventsRoundTrip) {
  const Timeline original = Sample();
  Timeline read;
  EventsFromJson(JsonField(json::parse(EventsToJson(original)), "events"), read);
  ASSERT_EQ(read.ops.size(), 2u);
  EXPECT_EQ(read.ops[1].name, "GatherBackward0");
  EXPECT_EQ(read.ops[1].scope, OpScope::kBackward);
  EXPECT_EQ(read.SequenceOf(1).seq_nr, 42);
  EXPECT_EQ(read.SequenceOf(1).forward_thread, 7u);
  EXPECT_EQ(read.CorrelationOf(0), 9u);
  EXPECT_EQ(read.CorrelationOf(1), 0u);
  EXPECT_EQ(read.CountsOf(0).page_faults, 2048);
  EXPECT_EQ(read.CountsOf(1).page_faults, -1);  // not counted
  EXPECT_EQ(read.CountsOf(0).input_elements, 4096);
  EXPECT_EQ(read.CountsOf(0).broadcast_elements, 65536);
  EXPECT_EQ(read.CountsOf(1).broadcast_elements, -1);  // not recorded
  EXPECT_EQ(read.markers[0].path, "blocks.3.mlp");
  EXPECT_EQ(read.markers[0].kind, MarkerKind::kBackwardBegin);
  EXPECT_EQ(read.kernels[0].name, "void gather_kernel<float>");
  EXPECT_EQ(read.kernels[0].grid[0], 80);
  EXPECT_EQ(read.memcpys[0].kind, MemcpyKind::kHostToDevice);
  EXPECT_TRUE(read.memcpys[0].pageable_host);
  EXPECT_EQ(read.memsets[0].bytes, 64u);
  EXPECT_EQ(read.syncs[0].kind, SyncKind::kStream);
  EXPECT_EQ(read.api_calls[0].name, "cudaLaunchKernel");
  EXPECT_EQ(read.probes[0].dropped_records, 2u);
  EXPECT_DOUBLE_EQ(read.page_fault_ns, 1300.5);
}

TEST(TimelineCodec, StepsRoundTripWithTheirStretches) {
  std::vector<StepSpan> steps = {StepOfPhases(0, 10, 12, 20, 30, 40)};
  const std::vector<StepSpan> read = StepsFromJson(JsonField(StepsToJson(steps), "steps"));
  ASSERT_EQ(read.size(), 1u);
  ASSERT_EQ(read[0].phases.size(), 4u);
  EXPECT_EQ(read[0].phases[0].phase, Phase::kData);
  EXPECT_EQ(read[0].phases[3].end_ns, 40);
}

std::string ErrorOf(const json& events) {
  try {
    Timeline timeline;
    EventsFromJson(JsonField(events, "events"), timeline);
  } catch (const ProbeMessageError& error) {
    return error.what();
  }
  return "";
}

TEST(TimelineCodec, RefusesMalformedEventsNamingTheField) {
  json events = json::parse(EventsToJson(Sample()));
  json bad = events;
  bad["ops"][0][0] = 99;  // no such name
  EXPECT_EQ(ErrorOf(bad),
            "events: field 'ops[0][0]' must be an index into events.names (below 5), got 99");
  bad = events;
  bad["ops"][0][1] = 17;
  EXPECT_EQ(ErrorOf(bad), "events: field 'ops[0][1]' must be an integer from 0 to 3, got 17");
  bad = events;
  bad["ops"][0][6] = 50;  // ends before it starts
  EXPECT_EQ(ErrorOf(bad), "events: field 'ops[0][6]' must be an integer >= 100, got 50");
  bad = events;
  bad["ops"][0][9] = -5;
  EXPECT_EQ(ErrorOf(bad), "events: field 'ops[0][9]' must be an integer >= -1, got -5");
  bad = events;
  bad["markers"][0] = "x";
  EXPECT_EQ(ErrorOf(bad), "events: field 'markers[0]' must be a non-empty array, got \"x\"");
  bad = events;
  bad["kernels"][0][5] = 1e300;
  EXPECT_EQ(ErrorOf(bad),
            "events: field 'kernels[0][5]' must be an integer from -2147483648 to 2147483647, "
            "got 1e+300");
  bad = events;
  bad["probes"] = json::object();
  EXPECT_EQ(ErrorOf(bad), "events: field 'probes' must be an array, got {}");
  bad = events;
  bad["page_fault_ns"] = -1;
  EXPECT_EQ(ErrorOf(bad), "events: field 'page_fault_ns' must be a number in [0, 1000000], got -1");
  bad["page_fault_ns"] = "fast";
  EXPECT_EQ(ErrorOf(bad),
            "events: field 'page_fault_ns' must be a number in [0, 1000000], got \"fast\"");
  EXPECT_EQ(ErrorOf(json::array()), "events: top level must be an object, got []");
}

TEST(TimelineCodec, RefusesStepsOutOfOrder) {
  json steps =
      StepsToJson({StepOfPhases(0, 10, 10, 20, 30, 40), StepOfPhases(1, 40, 40, 50, 60, 70)});
  steps[1][1] = 35;  // starts before the previous one ends
  EXPECT_THROW(StepsFromJson(JsonField(steps, "steps")), ProbeMessageError);
  steps = StepsToJson({StepOfPhases(0, 10, 10, 20, 30, 40)});
  steps[0][3][1][2] = 45;  // a phase past the step's end
  EXPECT_THROW(StepsFromJson(JsonField(steps, "steps")), ProbeMessageError);
  steps[0][3] = "phases";
  EXPECT_THROW(StepsFromJson(JsonField(steps, "steps")), ProbeMessageError);
}

}  // namespace
}  // namespace advisor
