#include "engine/script/node_summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "engine/json_input/json_document.h"
#include "engine/script/timeline_codec.h"

namespace advisor {
namespace {

using nlohmann::json;

constexpr char kFormat[] = "advisor-node-summary";
constexpr int kVersion = 1;
constexpr std::size_t kMaxScriptArguments = 4096;

json WindowToJson(const Timeline& timeline) {
  json window = {{"steps", StepsToJson(timeline.steps)},
                 {"events", json::parse(EventsToJson(timeline))}};
  // The window's peak on node 0 counts what the rank's allocator held before it (CUDA only).
  if (timeline.memory_at_start) {
    window["memory_at_start"] = MemoryAtStartToJson(*timeline.memory_at_start);
  }
  return window;
}

// The latest instant of the window: every start is before its end.
TimeNs LatestTime(const Timeline& timeline) {
  TimeNs latest = 0;
  const auto take = [&latest](const auto& events) {
    for (const auto& event : events) latest = std::max<TimeNs>(latest, event.end_ns);
  };
  take(timeline.steps);
  take(timeline.ops);
  take(timeline.kernels);
  take(timeline.memcpys);
  take(timeline.memsets);
  take(timeline.syncs);
  take(timeline.api_calls);
  for (const MarkerEvent& marker : timeline.markers) latest = std::max(latest, marker.time_ns);
  return latest;
}

// A window of at least one step, whose times stay below kMaxClockNs: a steady clock counts from
// its host's boot, far below it, and the merge's move onto node 0's clock cannot overflow.
Timeline WindowFromJson(const JsonField& window) {
  Timeline timeline;
  const JsonField steps = window.Required("steps");
  steps.Size(1);
  timeline.steps = StepsFromJson(steps);
  EventsFromJson(window.Required("events"), timeline);
  if (auto at_start = window.Optional("memory_at_start")) {
    timeline.memory_at_start = MemoryAtStartFromJson(*at_start);
  }
  if (LatestTime(timeline) > kMaxClockNs) window.Fail("has a time beyond 2^61 ns");
  return timeline;
}

// The timing windows' steps: at most the schedule's own bound of steps per window, a few windows.
constexpr std::size_t kMaxTimedSteps = 16 * kMaxScheduleSteps;

std::vector<StepSpan> TimedFromJson(const JsonField& steps) {
  steps.Size(0, kMaxTimedSteps);
  std::vector<StepSpan> timed = StepsFromJson(steps);
  for (const StepSpan& step : timed) {
    if (step.end_ns > kMaxClockNs) steps.Fail("has a time beyond 2^61 ns");
  }
  return timed;
}

int Bounded(const JsonField& field, std::int64_t low, std::int64_t high) {
  return static_cast<int>(field.Integer(low, high));
}

NodeSummary Read(const JsonField& file) {
  file.Required("format").Choice({kFormat});
  const JsonField version = file.Required("version");
  if (version.Integer(0) != kVersion) {
    version.Refuse(std::to_string(kVersion) + " (the version this advisor reads)");
  }
  NodeSummary summary;
  summary.world_size = Bounded(file.Required("world_size"), 2, kMaxWorldSize);
  summary.nodes = Bounded(file.Required("nodes"), 2, summary.world_size);
  summary.node = Bounded(file.Required("node"), 0, summary.nodes - 1);
  summary.host = file.OptionalText("host");
  const JsonField script = file.Required("script");
  for (const JsonField& argument : script.Elements(1, kMaxScriptArguments)) {
    summary.script.push_back(argument.Text());
  }
  const JsonField schedule = file.Required("schedule");
  summary.warmup_steps = Bounded(schedule.Required("warmup_steps"), 1, kMaxScheduleSteps);
  summary.window_steps = Bounded(schedule.Required("window_steps"), 1, kMaxScheduleSteps);
  summary.hotspot = file.OptionalText("hotspot");
  const JsonField ranks = file.Required("ranks");
  std::set<int> seen;
  for (const JsonField& entry : ranks.Elements(1, static_cast<std::size_t>(summary.world_size))) {
    NodeRankWindows rank;
    const JsonField number = entry.Required("rank");
    rank.rank = Bounded(number, 0, summary.world_size - 1);
    if (!seen.insert(rank.rank).second) number.Fail("repeats rank " + std::to_string(rank.rank));
    rank.baseline = WindowFromJson(entry.Required("baseline"));
    rank.modules = WindowFromJson(entry.Required("modules"));
    rank.timed = TimedFromJson(entry.Required("timed"));
    summary.ranks.push_back(std::move(rank));
  }
  return summary;
}

}  // namespace

std::string NodeSummaryToJson(const NodeSummary& summary) {
  json ranks = json::array();
  for (const NodeRankWindows& rank : summary.ranks) {
    ranks.push_back({{"rank", rank.rank},
                     {"baseline", WindowToJson(rank.baseline)},
                     {"modules", WindowToJson(rank.modules)},
                     {"timed", StepsToJson(rank.timed)}});
  }
  const json file = {{"format", kFormat},
                     {"version", kVersion},
                     {"node", summary.node},
                     {"nodes", summary.nodes},
                     {"world_size", summary.world_size},
                     {"host", summary.host},
                     {"script", summary.script},
                     {"schedule",
                      {{"warmup_steps", summary.warmup_steps},
                       {"window_steps", summary.window_steps}}},
                     {"hotspot", summary.hotspot},
                     {"ranks", std::move(ranks)}};
  return file.dump() + "\n";
}

NodeSummary ReadNodeSummary(const std::string& text, const std::string& source) {
  return RethrowAs<NodeFileError>([&] {
    CheckJsonSize(source, text.size(), kMaxNodeFileBytes);
    const json file = ParseJsonDocument(text, source);
    return Read(JsonField(file, source));
  });
}

}  // namespace advisor
