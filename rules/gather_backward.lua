-- torch.gather's backward scatters the gradient into a zeroed tensor with scatter_add: atomics
-- on a GPU, and under torch.use_deterministic_algorithms(True) a sort-based deterministic kernel
-- that can dominate the step. When the gather only selects whole rows (its index is one index
-- per row, expanded along the other dimensions), plain indexing (x[idx], index_select) computes
-- the same values with a cheaper backward in both modes: measured on one such model, 42.8 ->
-- 26.4 ms without deterministic algorithms and 37.6 -> 23.9 ms with them. The recipe checks the
-- numerics, so the rule does not need to prove the row-selection itself.

local GATHER_BACKWARD = advisor.set{ "GatherBackward0" }
-- The hot spot may name the gather by its forward op: the same call, the same line.
local GATHER = advisor.set{ "GatherBackward0", "aten::gather" }
-- timm's PatchDropout on ViT-B/16 (H200, batch 128): GatherBackward0 measured 2.8% of the step,
-- and the indexing rewrite saved about 2% (docs/gpu-check.md): worth doing from 1% up.
local MIN_SHARE = 0.01        -- below 1% of the step a rewrite is not worth it
local MEDIUM_SHARE = 0.02     -- the ViT case
local HIGH_SHARE = 0.20       -- a fifth of the step or more
local EXPECTED_SAVING = { deterministic = 0.8, atomic = 0.35 }  -- of the backward's time

return {
  id = "gather-backward",
  title = "The backward of torch.gather is slow",
  description = "torch.gather's backward scatters its gradient; indexing does the same work for less.",
  check = function(facts)
    local ms, _, matched = advisor.sum_ops(facts.ops, GATHER_BACKWARD)
    local op = matched[1] and matched[1].name
    -- The bisection's hot spot may have timed the node more closely than the whole-step table.
    local hotspot = facts.hotspot
    local at_hotspot = hotspot ~= nil and GATHER[hotspot.op] == true
    if at_hotspot and GATHER_BACKWARD[hotspot.op] then ms, op = math.max(ms, hotspot.ms), hotspot.op end
    local share = advisor.share(ms, facts.step.ms)
    if op == nil or share < MIN_SHARE then return {} end

    local deterministic = facts.run.deterministic == true
    local path = at_hotspot and hotspot.path
      or advisor.costliest_module_with_op(facts.modules, "aten::gather")
    local where = path ~= "" and (" in " .. path) or ""
    local source = at_hotspot and hotspot.source
    local line = source and string.format("; gathered at %s:%d", source.file, source.line) or ""
    local why = deterministic and " is slow in deterministic mode (a sort-based scatter)."
      or " scatters its gradient with atomic adds."
    return {{
      severity = share >= HIGH_SHARE and "high" or (share >= MEDIUM_SHARE and "medium" or "low"),
      path = path,
      op = op,
      message = "The backward of torch.gather" .. where .. why .. " If the gather only selects "
        .. "rows, index instead (x[idx] or index_select): same values, and a cheaper backward"
        .. (deterministic and " that stays fast with deterministic algorithms." or "."),
      evidence = string.format("%s takes %s per step (%s of a %s step) with deterministic "
        .. "algorithms %s%s", op, advisor.ms(ms), advisor.pct(share),
        advisor.ms(facts.step.ms), deterministic and "on" or "off", line),
      recipe = "gather-to-index",
      expected_gain_ms = ms * EXPECTED_SAVING[deterministic and "deterministic" or "atomic"],
    }}
  end,
}
