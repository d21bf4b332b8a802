#include "engine/report/kineto_members.h"

#include <set>
#include <string>

namespace advisor {

using nlohmann::json;

json DevicePropertiesOf(const RunReport& report, const std::vector<LabelledWindow>& windows) {
  json devices = json::array();
  if (report.run.device != "cuda") return devices;
  std::set<std::uint32_t> used;
  for (const LabelledWindow& window : windows) {
    for (const KernelEvent& kernel : window.timeline.kernels) used.insert(kernel.device);
    for (const MemcpyEvent& copy : window.timeline.memcpys) used.insert(copy.device);
    for (const MemsetEvent& memset : window.timeline.memsets) used.insert(memset.device);
  }
  for (std::uint32_t device : used) {
    json properties = {{"id", device}};
    if (!report.run.device_name.empty()) properties["name"] = report.run.device_name;
    if (report.memory && report.memory->device_total_mb > 0) {
      properties["totalGlobalMem"] =
          static_cast<std::int64_t>(report.memory->device_total_mb * 1024 * 1024);
    }
    devices.push_back(std::move(properties));
  }
  return devices;
}

json DistributedInfoOf(const RunReport& report) {
  if (!report.distributed || report.distributed->world_size < 1) return nullptr;
  json info = {{"world_size", report.distributed->world_size}};
  if (!report.distributed->backend.empty()) info["backend"] = report.distributed->backend;
  return info;
}

std::vector<json> FindingAnnotations(const RunReport& report, double ts_us, int pid) {
  std::vector<json> events;
  const auto instant = [&](const std::string& name, const char* kind, json args) {
    args["kind"] = kind;
    events.push_back({{"ph", "i"},
                      {"s", "g"},
                      {"cat", "advisor"},
                      {"name", name},
                      {"pid", pid},
                      {"tid", 0},
                      {"ts", ts_us},
                      {"args", std::move(args)}});
  };
  if (report.hotspot) {
    const Hotspot& hot = *report.hotspot;
    instant("hot spot: " + (hot.path.empty() ? std::string("the whole model") : hot.path) + " -> " +
                hot.op,
            "hot spot",
            {{"path", hot.path},
             {"op", hot.op},
             {"phase", hot.phase},
             {"ms_per_step", hot.ms},
             {"share", hot.share},
             {"confidence", hot.confidence}});
  }
  for (const Finding& finding : report.findings) {
    json args = {{"rule", finding.rule},       {"severity", SeverityName(finding.severity)},
                 {"path", finding.path},       {"op", finding.op},
                 {"message", finding.message}, {"evidence", finding.evidence}};
    if (!finding.recipe.empty()) args["recipe"] = finding.recipe;
    if (finding.expected_gain_ms) args["expected_gain_ms"] = *finding.expected_gain_ms;
    if (finding.source) {
      args["source"] = finding.source->file + ":" + std::to_string(finding.source->line);
    }
    instant("finding: " + finding.rule, "finding", std::move(args));
  }
  return events;
}

}  // namespace advisor
