#include "engine/script/node_summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "engine/script/message_fields.h"
#include "engine/script/timeline_codec.h"

namespace advisor {
namespace {

using nlohmann::json;
using namespace message_fields;

constexpr char kFormat[] = "advisor-node-summary";
constexpr int kVersion = 1;
constexpr std::size_t kMaxScriptArguments = 4096;

json WindowToJson(const Timeline& timeline) {
  return {{"steps", StepsToJson(timeline.steps)}, {"events", json::parse(EventsToJson(timeline))}};
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

Timeline WindowFromJson(const json& window, const std::string& what) {
  try {
    Timeline timeline;
    timeline.steps = StepsFromJson(Field(window, "steps"));
    EventsFromJson(Field(window, "events"), timeline);
    if (timeline.steps.empty()) throw ProbeMessageError("no steps");
    // A steady clock counts from its host's boot: far below this, and the merge's move onto node
    // 0's clock cannot overflow.
    if (LatestTime(timeline) > kMaxClockNs) throw ProbeMessageError("a time beyond 2^61 ns");
    return timeline;
  } catch (const ProbeMessageError& error) {
    throw ProbeMessageError(what + ": " + error.what());
  }
}

// The timing windows' steps: at most the schedule's own bound of steps per window, a few windows.
constexpr std::size_t kMaxTimedSteps = 16 * kMaxScheduleSteps;

std::vector<StepSpan> TimedFromJson(const json& steps, const std::string& what) {
  try {
    std::vector<StepSpan> timed = StepsFromJson(steps);
    if (timed.size() > kMaxTimedSteps) throw ProbeMessageError("too many steps");
    for (const StepSpan& step : timed) {
      if (step.end_ns > kMaxClockNs) throw ProbeMessageError("a time beyond 2^61 ns");
    }
    return timed;
  } catch (const ProbeMessageError& error) {
    throw ProbeMessageError(what + ": " + error.what());
  }
}

int Bounded(const json& value, const char* what, long long low, long long high) {
  const long long count = Count(value, what);
  if (count < low || count > high) {
    throw ProbeMessageError(std::string(what) + ": " + std::to_string(count) + " is not in " +
                            std::to_string(low) + ".." + std::to_string(high));
  }
  return static_cast<int>(count);
}

NodeSummary Read(const json& file) {
  if (!file.is_object()) throw ProbeMessageError("not a JSON object");
  if (file.value("format", "") != kFormat) {
    throw ProbeMessageError(std::string("not a node summary (format is not \"") + kFormat + "\")");
  }
  if (Count(Field(file, "version"), "version") != kVersion) {
    throw ProbeMessageError("version " + Field(file, "version").dump() + ", this advisor reads " +
                            std::to_string(kVersion));
  }
  NodeSummary summary;
  summary.world_size = Bounded(Field(file, "world_size"), "world_size", 2, kMaxWorldSize);
  summary.nodes = Bounded(Field(file, "nodes"), "nodes", 2, summary.world_size);
  summary.node = Bounded(Field(file, "node"), "node", 0, summary.nodes - 1);
  summary.host = TextOr(file, "host", "host");
  const json& script = Field(file, "script");
  if (!script.is_array() || script.empty() || script.size() > kMaxScriptArguments) {
    throw ProbeMessageError("script: not an array of 1 to " + std::to_string(kMaxScriptArguments) +
                            " arguments");
  }
  for (const json& argument : script) summary.script.push_back(Text(argument, "script argument"));
  const json& schedule = Field(file, "schedule");
  summary.warmup_steps =
      Bounded(Field(schedule, "warmup_steps"), "schedule warmup_steps", 1, kMaxScheduleSteps);
  summary.window_steps =
      Bounded(Field(schedule, "window_steps"), "schedule window_steps", 1, kMaxScheduleSteps);
  summary.hotspot = TextOr(file, "hotspot", "hotspot");
  const json& ranks = Field(file, "ranks");
  if (!ranks.is_array() || ranks.empty() || ranks.size() > static_cast<std::size_t>(summary.world_size)) {
    throw ProbeMessageError("ranks: not an array of 1 to world_size (" +
                            std::to_string(summary.world_size) + ") ranks");
  }
  std::set<int> seen;
  for (const json& entry : ranks) {
    NodeRankWindows rank;
    rank.rank = Bounded(Field(entry, "rank"), "ranks rank", 0, summary.world_size - 1);
    if (!seen.insert(rank.rank).second) {
      throw ProbeMessageError("ranks: rank " + std::to_string(rank.rank) + " appears twice");
    }
    const std::string what = "rank " + std::to_string(rank.rank);
    rank.baseline = WindowFromJson(Field(entry, "baseline"), what + " baseline");
    rank.modules = WindowFromJson(Field(entry, "modules"), what + " modules");
    rank.timed = TimedFromJson(Field(entry, "timed"), what + " timed");
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

NodeSummary ReadNodeSummary(const std::string& text) {
  if (text.size() > kMaxNodeFileBytes) {
    throw NodeFileError("larger than " + std::to_string(kMaxNodeFileBytes >> 20) + " MiB");
  }
  const json file = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (file.is_discarded()) throw NodeFileError("not valid JSON");
  try {
    return Read(file);
  } catch (const ProbeMessageError& error) {
    throw NodeFileError(error.what());
  } catch (const json::exception& error) {
    // A field of another type than its reader expects (value("format") on a number, say).
    throw NodeFileError(std::string("malformed: ") + error.what());
  }
}

}  // namespace advisor
