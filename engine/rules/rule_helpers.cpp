#include "engine/rules/rule_helpers.h"

namespace advisor {
namespace {

constexpr char kHelpers[] = R"lua(
advisor = {}

-- "12.3 ms" (two decimals below 1 ms); "n/a" for nil.
function advisor.ms(value)
  if value == nil then return "n/a" end
  if type(value) ~= "number" then error("advisor.ms expects a number", 2) end
  if math.abs(value) < 1 then return string.format("%.2f ms", value) end
  return string.format("%.1f ms", value)
end

-- A share 0..1 as "42%"; "n/a" for nil.
function advisor.pct(share)
  if share == nil then return "n/a" end
  if type(share) ~= "number" then error("advisor.pct expects a number", 2) end
  return string.format("%.0f%%", share * 100)
end

-- part / total, or 0 when the total is unknown or not positive (so thresholds never fire on it).
function advisor.share(part, total)
  if total == nil or total <= 0 then return 0 end
  return part / total
end

-- A set from a list: advisor.set{"aten::mm", "aten::bmm"}["aten::mm"] == true.
function advisor.set(list)
  local set = {}
  for _, item in ipairs(list) do set[item] = true end
  return set
end

-- What an op costs the step: its host time or its GPU time, whichever is larger (a GPU op
-- whose kernels outlast their launch costs its GPU time; a host-bound one its host time).
function advisor.op_ms(op)
  return math.max(op.ms or 0, op.gpu_ms or 0)
end

-- The ops whose name is in `names` (a set from advisor.set): their summed cost (advisor.op_ms),
-- their summed calls per step, and the matching ops, costliest first.
function advisor.sum_ops(ops, names)
  local ms, calls, matched = 0, 0, {}
  for _, op in ipairs(ops or {}) do
    if names[op.name] then
      ms = ms + advisor.op_ms(op)
      calls = calls + (op.calls or 0)
      matched[#matched + 1] = op
    end
  end
  table.sort(matched, function(a, b) return advisor.op_ms(a) > advisor.op_ms(b) end)
  return ms, calls, matched
end

-- "high" when value >= high_at, "medium" when value >= medium_at, otherwise "low".
function advisor.severity(value, high_at, medium_at)
  if value >= high_at then return "high" end
  if value >= medium_at then return "medium" end
  return "low"
end

-- Whether `text` contains one of the plain strings in the list `fragments` (no Lua patterns):
-- advisor.has_fragment("NVIDIA H100 80GB HBM3", {"A100", "H100"}) == true. Rules recognise GPUs by
-- name fragments with it.
function advisor.has_fragment(text, fragments)
  for _, fragment in ipairs(fragments) do
    if text:find(fragment, 1, true) then return true end
  end
  return false
end

-- A finding's source for an entry of facts.compile (a graph break, a recompiled function): its
-- file and line where torch named one, nil for a frame torch made itself (line 0).
function advisor.compile_source(entry)
  if entry.line < 1 or entry.file == "" then return nil end
  return {file = entry.file, line = entry.line, text = entry.text}
end

-- How a fix's predicted saving (MB) weighs against facts.out_of_memory's shortfall, for the
-- out-of-memory rules: the severity ("high" where it covers the shortfall) and the clause that
-- says so.
function advisor.oom_fit(oom, saving_mb)
  if oom.shortfall_mb == nil then
    return "medium", string.format("against a %.0f MB request; what the device lacked was not "
      .. "measured (no CUDA allocator)", oom.requested_mb or 0)
  end
  if saving_mb >= oom.shortfall_mb then
    return "high", string.format("covering the %.0f MB the request lacked", oom.shortfall_mb)
  end
  return "medium", string.format("short of the %.0f MB the request lacked on its own",
                                 oom.shortfall_mb)
end

-- The path of the costliest measured module whose forward calls the op `name`, and its cost;
-- "" and 0 when no measured module does. Rules use it to put a finding about an op on the module
-- that runs it.
function advisor.costliest_module_with_op(modules, name)
  local best, best_ms = "", -1
  for path, module in pairs(modules) do
    local ms = module.ms or 0
    if module.has_op[name] and (ms > best_ms or (ms == best_ms and path < best)) then
      best, best_ms = path, ms
    end
  end
  return best, math.max(best_ms, 0)
end

-- A piece of the input stage (facts.data.stage.pieces) as a reader finds it in the code:
-- "model.py:30 random_dilation" (the file's name, the line, the transform or op); the bare name
-- where its line is unknown.
function advisor.stage_piece(piece)
  if piece.source == nil then return piece.name end
  return string.format("%s:%d %s", piece.source.file:match("[^/]*$"), piece.source.line, piece.name)
end

-- The heaviest line of the input stage (facts.data.stage), as advisor.stage_piece names it with
-- its share of the batch: "; its heaviest line: model.py:18 aten::maximum, 69% of the batch";
-- "" where the stage has no line.
function advisor.stage_heaviest_line(stage)
  for _, piece in ipairs(stage.pieces) do
    if piece.kind == "line" then
      return string.format("; its heaviest line: %s, %s of the batch", advisor.stage_piece(piece),
                           advisor.pct(piece.share))
    end
  end
  return ""
end

-- The image area of a shape [..., H, W] (H x W, of rank 3 or more); nil for fewer dimensions.
function advisor.image_area(shape)
  if shape == nil or #shape < 3 then return nil end
  return shape[#shape - 1] * shape[#shape]
end

-- The names of `ops` joined as "a, b and c" (at most `limit`, default 3).
function advisor.names(ops, limit)
  limit = limit or 3
  local names = {}
  for i = 1, math.min(#ops, limit) do names[i] = ops[i].name end
  local text = table.concat(names, ", ")
  if #ops > limit then text = text .. string.format(" and %d more", #ops - limit) end
  return text
end
)lua";

}  // namespace

int OpenRuleHelpers(lua_State* L) {
  if (luaL_loadbufferx(L, kHelpers, sizeof(kHelpers) - 1, "=advisor", "t") != LUA_OK) {
    return lua_error(L);
  }
  lua_call(L, 0, 0);
  return 0;
}

}  // namespace advisor
