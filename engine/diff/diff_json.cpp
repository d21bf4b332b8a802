#include "engine/diff/diff_json.h"

#include <nlohmann/json.hpp>

#include "engine/model/finding.h"

namespace advisor {
namespace {

using nlohmann::json;

template <typename T>
json OrNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json OrNull(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json PartToJson(const DeltaPart& part, const char* name_key) {
  return {{name_key, part.name},
          {"before_ms", OrNull(part.before_ms)},
          {"after_ms", OrNull(part.after_ms)},
          {"delta_ms", part.delta_ms}};
}

json StepToJson(const StepChange& step) {
  return {{"statistic", step.statistic},
          {"before_ms", step.before_ms},
          {"after_ms", step.after_ms},
          {"delta_ms", step.delta_ms},
          {"before_steps", step.before_steps},
          {"after_steps", step.after_steps},
          {"delta_low_ms", OrNull(step.delta_low_ms)},
          {"delta_high_ms", OrNull(step.delta_high_ms)},
          {"verdict", OrNull(step.verdict)},
          {"why", step.why}};
}

json FindingsToJson(const std::vector<FindingChange>& changes) {
  json out = json::array();
  for (const FindingChange& change : changes) {
    const Finding& finding = change.finding;
    out.push_back({{"change", change.change},
                   {"rule", finding.rule},
                   {"path", finding.path},
                   {"op", finding.op},
                   {"severity", SeverityName(finding.severity)},
                   {"before_severity", OrNull(change.before_severity)},
                   {"message", finding.message},
                   {"recipe", finding.recipe}});
  }
  return out;
}

json FixesToJson(const std::vector<FixChange>& fixes) {
  json out = json::array();
  for (const FixChange& fix : fixes) {
    out.push_back({{"recipe", fix.recipe},
                   {"before_status", OrNull(fix.before_status)},
                   {"after_status", OrNull(fix.after_status)},
                   {"before_speedup", OrNull(fix.before_speedup)},
                   {"after_speedup", OrNull(fix.after_speedup)}});
  }
  return out;
}

}  // namespace

std::string DiffToJsonText(const ReportDiff& diff) {
  json phases = json::array();
  for (const DeltaPart& phase : diff.phases) phases.push_back(PartToJson(phase, "phase"));
  json modules = json::array();
  for (const ModuleDelta& module : diff.modules) {
    json entry = PartToJson(module.part, "path");
    entry["own_time"] = module.own_time;
    modules.push_back(std::move(entry));
  }
  json ops = json::array();
  for (const OpDelta& op : diff.ops) {
    json entry = PartToJson(op.part, "name");
    entry["phase"] = op.phase;
    ops.push_back(std::move(entry));
  }
  const json out = {
      {"schema_version", kDiffSchemaVersion},
      {"before", diff.before},
      {"after", diff.after},
      {"step", StepToJson(diff.step)},
      {"step_delta_ms", diff.step.delta_ms},
      {"phases_time", DiffTimeName(diff.phases_time)},
      {"phases", std::move(phases)},
      {"not_attributed_ms", diff.not_attributed_ms},
      {"explained_share", ExplainedShare(diff.step.delta_ms, diff.not_attributed_ms)},
      {"modules_time", DiffTimeName(diff.modules_time)},
      {"modules", std::move(modules)},
      {"modules_not_attributed_ms", diff.modules_not_attributed_ms},
      {"device_not_attributed_ms", OrNull(diff.device_not_attributed_ms)},
      {"modules_explained_share", ModulesExplainedShare(diff)},
      {"ops_time", DiffTimeName(diff.ops_time)},
      {"ops", std::move(ops)},
      {"ops_other_ms", diff.ops_other_ms},
      {"ops_not_attributed_ms", diff.ops_not_attributed_ms},
      {"ops_explained_share", ExplainedShare(diff.step.delta_ms, diff.ops_not_attributed_ms)},
      {"before_hotspot", OrNull(diff.before_hotspot)},
      {"after_hotspot", OrNull(diff.after_hotspot)},
      {"findings", FindingsToJson(diff.findings)},
      {"findings_unchanged", diff.findings_unchanged},
      {"fixes", FixesToJson(diff.fixes)},
      {"notes", diff.notes}};
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace advisor
