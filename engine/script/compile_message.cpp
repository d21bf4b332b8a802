#include "engine/script/compile_message.h"

#include <string>

#include "engine/script/probe_messages.h"

namespace advisor {
namespace {

// A line of the user's code: 1 onwards (a compiled frame's first line may be 0 where torch made
// the code itself).
int Line(const JsonField& field) { return static_cast<int>(field.Integer(0, kMaxProbeCount)); }

int Count(const JsonField& field) { return static_cast<int>(field.Integer(1, kMaxProbeCount)); }

std::string Name(const JsonField& field) { return field.Text(kMaxCompileTextBytes); }

RegionalCompile ReadRegional(const JsonField& field) {
  RegionalCompile regional;
  const JsonField levels = field.Required("levels");
  for (const JsonField& level : levels.Elements(1, kMaxCompileEntries)) {
    regional.levels.push_back(level.Text());
  }
  regional.compilations =
      static_cast<int>(field.Required("compilations").Integer(0, kMaxProbeCount));
  regional.compile_s = field.Required("compile_s").Number(NumberRange::AtLeast(0));
  regional.in_measured_steps =
      static_cast<int>(field.Required("in_measured_steps").Integer(0, kMaxProbeCount));
  const JsonField eager = field.Required("eager");
  for (const JsonField& entry : eager.Elements(0, kMaxCompileEntries)) {
    regional.eager.push_back({entry.Required("path").Text(), Name(entry.Required("reason"))});
  }
  return regional;
}

int Step(const JsonField& field) { return static_cast<int>(field.Integer(0, kMaxProbeCount)); }

CudaGraphs ReadCudaGraphs(const JsonField& field) {
  CudaGraphs graphs;
  graphs.recordings = static_cast<int>(field.Required("recordings").Integer(0, kMaxProbeCount));
  graphs.step = Step(field.Required("step"));
  const JsonField functions = field.Required("functions");
  for (const JsonField& entry : functions.Elements(0, kMaxCompileEntries)) {
    graphs.functions.push_back(
        {Name(entry.Required("function")), Name(entry.Required("mode")),
         Count(entry.Required("recordings")), Step(entry.Required("first_step")),
         Step(entry.Required("later_steps")), Step(entry.Required("rerecordings")),
         Name(entry.Required("rerecord_reason"))});
  }
  const JsonField skipped = field.Required("skipped");
  for (const JsonField& entry : skipped.Elements(0, kMaxCompileEntries)) {
    graphs.skipped.push_back({Name(entry.Required("reason")), Count(entry.Required("count"))});
  }
  return graphs;
}

}  // namespace

std::optional<CompileReport> ReadCompileReport(const nlohmann::json& reply) {
  const JsonField message(reply, ProbeMessageName(reply));
  const std::optional<JsonField> compile = message.OptionalNonNull("compile");
  if (!compile) return std::nullopt;
  CompileReport report;
  report.graphs = static_cast<int>(compile->Required("graphs").Integer(0, kMaxProbeCount));
  const JsonField breaks = compile->Required("graph_breaks");
  for (const JsonField& entry : breaks.Elements(0, kMaxCompileEntries)) {
    const std::optional<JsonField> text = entry.OptionalNonNull("text");
    report.graph_breaks.push_back({Name(entry.Required("reason")), entry.Required("file").Text(),
                                   Line(entry.Required("line")), Count(entry.Required("count")),
                                   text ? Name(*text) : std::string()});
  }
  const JsonField recompiles = compile->Required("recompiles");
  for (const JsonField& entry : recompiles.Elements(0, kMaxCompileEntries)) {
    report.recompiles.push_back({Name(entry.Required("function")), entry.Required("file").Text(),
                                 Line(entry.Required("line")), Name(entry.Required("guard")),
                                 Count(entry.Required("count"))});
  }
  const JsonField limits = compile->Required("recompile_limit_hits");
  for (const JsonField& entry : limits.Elements(0, kMaxCompileEntries)) {
    report.recompile_limit_hits.push_back(
        {Name(entry.Required("function")), entry.Required("file").Text(),
         Line(entry.Required("line")),
         static_cast<int>(entry.Required("limit").Integer(0, kMaxProbeCount))});
  }
  report.compilations =
      static_cast<int>(compile->Required("compilations").Integer(0, kMaxProbeCount));
  report.compile_s = compile->Required("compile_s").Number(NumberRange::AtLeast(0));
  if (const std::optional<JsonField> regional = compile->OptionalNonNull("regional")) {
    report.regional = ReadRegional(*regional);
  }
  if (const std::optional<JsonField> graphs = compile->OptionalNonNull("cuda_graphs")) {
    report.cuda_graphs = ReadCudaGraphs(*graphs);
  }
  return report;
}

std::optional<std::vector<CompiledGraphSources>> ReadProvenance(const nlohmann::json& reply) {
  const JsonField message(reply, ProbeMessageName(reply));
  const std::optional<JsonField> tables = message.OptionalNonNull("provenance");
  if (!tables) return std::nullopt;
  return ReadCompiledProvenance(*tables);
}

}  // namespace advisor
