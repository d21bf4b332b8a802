-- torch.use_deterministic_algorithms(True) swaps atomic-add kernels for sort-based or serial
-- ones. The ops below are those PyTorch documents as taking a slower deterministic path on CUDA
-- (scatter/index accumulation, their backward nodes, cumsum). When they cost a real part of the
-- step, determinism is a price worth stating: keep it for debugging and reproducibility runs,
-- turn it off for throughput runs.

local DETERMINISTIC_SLOW_OPS = advisor.set{
  "GatherBackward0", "ScatterAddBackward0", "IndexAddBackward0", "IndexSelectBackward0",
  "IndexPutBackward0", "RepeatInterleaveBackward0", "CumsumBackward0",
  "aten::scatter_add_", "aten::index_add_", "aten::index_put_", "aten::index_copy_",
  "aten::put_", "aten::scatter_reduce_", "aten::cumsum",
}
-- The ViT PatchDropout case (GatherBackward0 at 2.8% of the step on an H200) is the smallest
-- cost this rule is meant to name: turning determinism off there measured about 3.5%.
local MIN_SHARE = 0.02       -- under 2% of the step, determinism is cheap enough
local MEDIUM_SHARE = 0.10    -- a tenth of the step or more is a real trade-off
local EXPECTED_SAVING = 0.5  -- nondeterministic atomics typically halve these ops' time

return {
  id = "deterministic-algorithms-cost",
  title = "Deterministic algorithms cost time",
  check = function(facts)
    if not facts.run.deterministic then return {} end
    -- facts.ops lists nested ops beside their callers, with inclusive costs: an aten:: op in the
    -- backward phase runs inside one of the autograd nodes listed, so only forward calls count.
    local ops = {}
    for _, op in ipairs(facts.ops) do
      if op.phase ~= "backward" or op.name:find("aten::", 1, true) ~= 1 then ops[#ops + 1] = op end
    end
    local ms, _, matched = advisor.sum_ops(ops, DETERMINISTIC_SLOW_OPS)
    local share = advisor.share(ms, facts.step.ms)
    if share < MIN_SHARE then return {} end
    return {{
      severity = share >= MEDIUM_SHARE and "medium" or "low",
      op = matched[1].name,
      message = "Deterministic algorithms are on, and ops that take a slower deterministic path "
        .. "cost a large part of the step. Keep determinism for reproducibility runs and turn it "
        .. "off (torch.use_deterministic_algorithms(False)) where throughput matters.",
      evidence = string.format("%s per step (%s of the step) in ops with slow deterministic "
        .. "kernels: %s", advisor.ms(ms), advisor.pct(share), advisor.names(matched)),
      recipe = "deterministic-off",
      expected_gain_ms = ms * EXPECTED_SAVING,
    }}
  end,
}
