#include "engine/diff/report_reader.h"

#include <optional>
#include <vector>

#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"
#include "engine/report/json_writer.h"

namespace advisor {
namespace {

const NumberRange kTime = NumberRange::AtLeast(0);

double Time(const JsonField& object, const char* key) { return object.Required(key).Number(kTime); }

// A time that is null where it was not measured (docs/report-schema.md, "Absent means not
// measured"): 0 then, as the writers' structs keep it.
double TimeOrZero(const JsonField& object, const char* key) {
  return object.Required(key).NumberOrNull(kTime).value_or(0);
}

// The unprofiled steps' phases (step.timed_phases_ms); reports before them have none.
std::optional<StepPhaseTimes> ReadTimedPhases(const JsonField& step) {
  const std::optional<JsonField> phases = step.OptionalNonNull("timed_phases_ms");
  if (!phases) return std::nullopt;
  StepPhaseTimes out;
  out.data_ms = phases->Required("data").NumberOrNull(kTime);
  out.forward_ms = Time(*phases, "forward");
  out.loss_ms = phases->Required("loss").NumberOrNull(kTime);
  out.backward_ms = Time(*phases, "backward");
  out.optimizer_ms = Time(*phases, "optimizer");
  out.evaluation_ms = Time(*phases, "evaluation");
  out.rest_ms = phases->Required("rest").Number();  // a hair below 0 from rounding, as rest_ms
  return out;
}

StepBreakdown ReadStep(const JsonField& step) {
  StepBreakdown out;
  out.median_ms = Time(step, "median_ms");
  out.mean_ms = Time(step, "mean_ms");
  out.min_ms = Time(step, "min_ms");
  out.max_ms = Time(step, "max_ms");
  // Reports of advisors before the diff have no samples: their step difference has no interval.
  if (const std::optional<JsonField> samples = step.OptionalNonNull("samples_ms")) {
    for (const JsonField& sample : samples->Elements()) {
      out.samples_ms.push_back(sample.Number(NumberRange::Above(0)));
    }
  }
  out.profiled_ms = Time(step, "profiled_ms");
  out.forward_ms = Time(step, "forward_ms");
  out.loss_ms = step.Required("loss_ms").NumberOrNull(kTime);
  out.backward_ms = Time(step, "backward_ms");
  out.optimizer_ms = Time(step, "optimizer_ms");
  out.evaluation_ms = Time(step, "evaluation_ms");
  // rest_ms is what the phases leave of the profiled step; rounding makes it a hair below 0.
  out.rest_ms = step.Required("rest_ms").Number();
  out.timed_phases = ReadTimedPhases(step);
  return out;
}

std::vector<ModuleStats> ReadModules(const JsonField& modules) {
  std::vector<ModuleStats> out;
  for (const JsonField& entry : modules.Elements()) {
    ModuleStats module;
    module.path = entry.Required("path").Text();
    module.measured = entry.Required("measured").Bool();
    module.forward_ms = TimeOrZero(entry, "forward_ms");
    module.backward_ms = TimeOrZero(entry, "backward_ms");
    module.gpu_ms = TimeOrZero(entry, "gpu_ms");
    // Null for a trace's modules, absent in reports before it: 0, unknown, either way.
    if (const std::optional<JsonField> window = entry.OptionalNonNull("window_step_ms")) {
      module.window_step_ms = window->Number(NumberRange::Above(0));
    }
    out.push_back(std::move(module));
  }
  return out;
}

std::vector<OpTime> ReadOps(const JsonField& ops) {
  std::vector<OpTime> out;
  for (const JsonField& entry : ops.Elements()) {
    OpTime op;
    op.name = entry.Required("name").Text();
    op.phase = entry.Required("phase").Text();
    op.calls = static_cast<int>(entry.Required("calls").Integer(0, INT32_MAX));
    op.ms = Time(entry, "ms");
    op.self_ms = Time(entry, "self_ms");
    op.gpu_ms = TimeOrZero(entry, "gpu_ms");
    // Null without a GPU probe, absent in reports before it: none either way.
    if (const std::optional<JsonField> self_gpu = entry.OptionalNonNull("self_gpu_ms")) {
      op.self_gpu_ms = self_gpu->Number(kTime);
    }
    out.push_back(std::move(op));
  }
  return out;
}

// What the levels ranked modules by: "device" where they recorded kernels, whose times the diff
// then compares; "" without a bisection (a trace's report).
std::string ReadRankedBy(const JsonField& report) {
  const std::optional<JsonField> bisection = report.OptionalNonNull("bisection");
  if (!bisection) return "";
  const std::optional<JsonField> ranked_by = bisection->OptionalNonNull("ranked_by");
  return ranked_by ? ranked_by->Choice({"device", "host"}) : "";
}

// The baseline window's device time: what the modules' device times are split from.
std::optional<GpuSummary> ReadGpu(const JsonField& report) {
  const std::optional<JsonField> gpu = report.OptionalNonNull("gpu");
  if (!gpu) return std::nullopt;
  GpuSummary out;
  out.kernel_ms = Time(*gpu, "kernel_ms");
  out.memcpy_ms = Time(*gpu, "memcpy_ms");
  return out;
}

std::optional<Hotspot> ReadHotspot(const JsonField& report) {
  const std::optional<JsonField> hotspot = report.OptionalNonNull("hotspot");
  if (!hotspot) return std::nullopt;
  Hotspot out;
  out.path = hotspot->Required("path").Text();
  out.phase = hotspot->Required("phase").Text();
  out.op = hotspot->Required("op").Text();
  out.ms = Time(*hotspot, "ms");
  return out;
}

std::vector<Finding> ReadFindings(const JsonField& findings) {
  std::vector<Finding> out;
  for (const JsonField& entry : findings.Elements()) {
    Finding finding;
    finding.rule = entry.Required("rule").Text();
    const JsonField severity = entry.Required("severity");
    finding.severity = *ParseSeverity(severity.Choice({"high", "medium", "low"}));
    finding.path = entry.Required("path").Text();
    finding.op = entry.Required("op").Text();
    // A rule's own words, newlines and all (report.json keeps the real text); the writers make
    // them printable.
    finding.message = entry.Required("message").String();
    finding.recipe = entry.Required("recipe").Text();
    finding.expected_gain_ms = entry.Required("expected_gain_ms").NumberOrNull();
    out.push_back(std::move(finding));
  }
  return out;
}

std::vector<FixResult> ReadFixes(const JsonField& fixes) {
  std::vector<FixResult> out;
  for (const JsonField& entry : fixes.Elements()) {
    FixResult fix;
    fix.recipe = entry.Required("recipe").Text();
    fix.status = entry.Required("status").Text();
    fix.speedup = entry.Required("speedup").NumberOrNull(NumberRange::Above(0)).value_or(0);
    out.push_back(std::move(fix));
  }
  return out;
}

// Each rank's step, phases and communication, and the straggler: what `advisor diff RUN --ranks`
// compares (rank_sides.h).
DistributedSummary ReadDistributed(const JsonField& distributed) {
  DistributedSummary out;
  const JsonField ranks = distributed.Required("ranks");
  for (const JsonField& entry : ranks.Elements()) {
    RankSummary rank;
    rank.rank = static_cast<int>(entry.Required("rank").Integer(0, INT32_MAX));
    rank.step_ms = Time(entry, "step_ms");
    rank.forward_ms = Time(entry, "forward_ms");
    rank.backward_ms = Time(entry, "backward_ms");
    rank.optimizer_ms = Time(entry, "optimizer_ms");
    rank.data_wait_ms = entry.Required("data_wait_ms").NumberOrNull(kTime);
    rank.exposed_comm_ms = Time(entry, "exposed_comm_ms");
    rank.wait_ms = Time(entry, "wait_ms");
    out.ranks.push_back(rank);
  }
  if (const std::optional<JsonField> straggler = distributed.OptionalNonNull("straggler")) {
    out.straggler = Straggler{};
    out.straggler->rank = static_cast<int>(straggler->Required("rank").Integer(0, INT32_MAX));
    out.straggler->late_ms = Time(*straggler, "late_ms");
    out.straggler->path = straggler->Required("path").Text();
  }
  return out;
}

RunReport ReadReport(const JsonField& top) {
  top.ExpectObject();
  const JsonField version = top.Required("schema_version");
  if (version.Integer() != kReportSchemaVersion) {
    version.Fail("is not the version this advisor reads (" + std::to_string(kReportSchemaVersion) +
                 ")");
  }
  RunReport report;
  const JsonField run = top.Required("run");
  const JsonField mode = run.Required("mode");
  report.run.mode = *ParseDoor(mode.Choice({"model", "script", "trace", "snapshot"}));
  report.run.model = run.Required("model").Text();
  report.run.device = run.Required("device").Text();
  const JsonField step = top.Required("step");
  if (step.IsNull()) step.Fail("is null: an allocator snapshot's report has no step to compare");
  report.step = ReadStep(step);
  if (const std::optional<JsonField> data = top.OptionalNonNull("data")) {
    report.data = DataWait{};
    report.data->wait_ms = Time(*data, "wait_ms");
  }
  report.levels_ranked_by = ReadRankedBy(top);
  report.gpu = ReadGpu(top);
  report.hotspot = ReadHotspot(top);
  report.modules = ReadModules(top.Required("modules"));
  report.ops = ReadOps(top.Required("ops"));
  report.findings = ReadFindings(top.Required("findings"));
  report.fixes = ReadFixes(top.Required("fixes"));
  if (const std::optional<JsonField> distributed = top.OptionalNonNull("distributed")) {
    report.distributed = ReadDistributed(*distributed);
  }
  return report;
}

}  // namespace

RunReport ReadReportJson(const std::string& path) {
  const nlohmann::json document = ParseJsonDocument(ReadJsonFile(path, kMaxReportJsonBytes), path);
  return ReadReport(JsonField(document, path));
}

}  // namespace advisor
