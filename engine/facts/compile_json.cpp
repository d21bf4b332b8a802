#include "engine/facts/compile_json.h"

namespace advisor {

nlohmann::json CompileJson(const CompileReport& compile) {
  nlohmann::json breaks = nlohmann::json::array();
  for (const GraphBreak& graph_break : compile.graph_breaks) {
    breaks.push_back({{"reason", graph_break.reason},
                      {"file", graph_break.file},
                      {"line", graph_break.line},
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
  return {{"graphs", compile.graphs},
          {"compilations", compile.compilations},
          {"graph_breaks", std::move(breaks)},
          {"recompiles", std::move(recompiles)},
          {"recompile_limit_hits", std::move(limits)},
          {"compile_s", compile.compile_s}};
}

}  // namespace advisor
