-- torch.gather's backward scatters the gradient with scatter_add. Under
-- torch.use_deterministic_algorithms(True) that scatter becomes a sort-based deterministic kernel
-- that can dominate the step. When the gather only selects whole rows (its index is one index
-- per row, expanded along the other dimensions), plain indexing (x[idx], index_select) computes
-- the same values, and its backward stays fast in deterministic mode. The recipe checks the
-- numerics, so the rule does not need to prove the row-selection itself.

local GATHER_BACKWARD = advisor.set{ "GatherBackward0" }
-- timm's PatchDropout on ViT-B/16 (H200, batch 128): GatherBackward0 measured 2.8% of the step,
-- and the indexing rewrite saved about 2% (docs/gpu-check.md): worth doing from 1% up.
local MIN_SHARE = 0.01        -- below 1% of the step a rewrite is not worth it
local MEDIUM_SHARE = 0.02     -- the ViT case
local HIGH_SHARE = 0.20       -- a fifth of the step or more
local EXPECTED_SAVING = 0.8   -- the indexing backward costs a fraction of the deterministic scatter

return {
  id = "deterministic-gather-backward",
  title = "Deterministic gather backward is slow",
  description = "torch.gather's backward under deterministic algorithms; indexing does the same work fast.",
  check = function(facts)
    if not facts.run.deterministic then return {} end
    local ms, _, matched = advisor.sum_ops(facts.ops, GATHER_BACKWARD)
    local op = matched[1] and matched[1].name
    -- The bisection's hot spot may have timed the node more closely than the whole-step table.
    local hotspot = facts.hotspot
    local at_hotspot = hotspot ~= nil and GATHER_BACKWARD[hotspot.op] == true
    if at_hotspot then ms, op = math.max(ms, hotspot.ms), hotspot.op end
    local share = advisor.share(ms, facts.step.median_ms)
    if op == nil or share < MIN_SHARE then return {} end

    local path = at_hotspot and hotspot.path
      or advisor.costliest_module_with_op(facts.modules, "aten::gather")
    local where = path ~= "" and (" in " .. path) or ""
    local source = at_hotspot and hotspot.source
    local line = source and string.format("; gathered at %s:%d", source.file, source.line) or ""
    return {{
      severity = share >= HIGH_SHARE and "high" or (share >= MEDIUM_SHARE and "medium" or "low"),
      path = path,
      op = op,
      message = "The backward of torch.gather" .. where .. " is slow in deterministic mode. If the "
        .. "gather only selects rows, index instead (x[idx] or index_select): same values, and "
        .. "a backward that stays fast with deterministic algorithms.",
      evidence = string.format("%s takes %s per step (%s of a %s step) with deterministic "
        .. "algorithms on%s", op, advisor.ms(ms), advisor.pct(share),
        advisor.ms(facts.step.median_ms), line),
      recipe = "gather-to-index",
      expected_gain_ms = ms * EXPECTED_SAVING,
    }}
  end,
}
