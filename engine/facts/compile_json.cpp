#include "engine/facts/compile_json.h"

namespace advisor {
namespace {

nlohmann::json RegionalJson(const RegionalCompile& regional) {
  nlohmann::json eager = nlohmann::json::array();
  for (const EagerRegion& region : regional.eager) {
    eager.push_back({{"path", region.path}, {"reason", region.reason}});
  }
  return {{"levels", regional.levels},
          {"compilations", regional.compilations},
          {"compile_s", regional.compile_s},
          {"in_measured_steps", regional.in_measured_steps},
          {"eager", std::move(eager)}};
}

nlohmann::json CudaGraphsJson(const CudaGraphs& graphs) {
  nlohmann::json functions = nlohmann::json::array();
  for (const CudaGraphFunction& function : graphs.functions) {
    functions.push_back({{"function", function.function},
                         {"mode", function.mode},
                         {"recordings", function.recordings},
                         {"first_step", function.first_step},
                         {"later_steps", function.later_steps},
                         {"rerecordings", function.rerecordings},
                         {"rerecord_reason", function.rerecord_reason}});
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const CudaGraphSkip& skip : graphs.skipped) {
    skipped.push_back({{"reason", skip.reason}, {"count", skip.count}});
  }
  return {{"recordings", graphs.recordings},
          {"step", graphs.step},
          {"functions", std::move(functions)},
          {"skipped", std::move(skipped)}};
}

}  // namespace

nlohmann::json CompileJson(const CompileReport& compile) {
  nlohmann::json breaks = nlohmann::json::array();
  for (const GraphBreak& graph_break : compile.graph_breaks) {
    breaks.push_back({{"reason", graph_break.reason},
                      {"file", graph_break.file},
                      {"line", graph_break.line},
                      {"text", graph_break.text},
                      {"count", graph_break.count}});
  }
  nlohmann::json recompiles = nlohmann::json::array();
  for (const Recompile& recompile : compile.recompiles) {
    recompiles.push_back({{"function", recompile.function},
                          {"file", recompile.file},
                          {"line", recompile.line},
                          {"guard", recompile.guard},
                          {"count", recompile.count}});
  }
  nlohmann::json limits = nlohmann::json::array();
  for (const RecompileLimitHit& hit : compile.recompile_limit_hits) {
    limits.push_back(
        {{"function", hit.function}, {"file", hit.file}, {"line", hit.line}, {"limit", hit.limit}});
  }
  nlohmann::json out = {{"graphs", compile.graphs},
                        {"compilations", compile.compilations},
                        {"graph_breaks", std::move(breaks)},
                        {"recompiles", std::move(recompiles)},
                        {"recompile_limit_hits", std::move(limits)},
                        {"compile_s", compile.compile_s}};
  if (compile.regional) out["regional"] = RegionalJson(*compile.regional);
  if (compile.cuda_graphs) out["cuda_graphs"] = CudaGraphsJson(*compile.cuda_graphs);
  return out;
}

}  // namespace advisor
