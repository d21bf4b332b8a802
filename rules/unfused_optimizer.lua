-- A plain (for-loop) optimizer launches a handful of small kernels per parameter tensor: a model
-- with hundreds of tensors spends its optimizer phase launching thousands of kernels. The
-- foreach implementation batches them across tensors; fused=True (Adam, AdamW, SGD) runs the
-- whole update in a few kernels. Steps that already use _foreach_ or _fused_ ops are left alone.

local MIN_SHARE = 0.10         -- the optimizer takes a tenth of the step
local HIGH_SHARE = 0.25
local MIN_CALLS = 100          -- op calls per step in the optimizer phase: a per-tensor loop
local EXPECTED_SAVING = 0.6    -- of the optimizer phase

local function is_multi_tensor(name)
  return name:find("_foreach_", 1, true) or name:find("_fused_", 1, true)
end

return {
  id = "unfused-optimizer",
  title = "The optimizer step runs as many small kernels",
  check = function(facts)
    local step = facts.step
    local share = advisor.share(step.optimizer_ms, step.ms)
    if share < MIN_SHARE then return {} end
    local calls, ops = 0, {}
    for _, op in ipairs(facts.ops) do
      if op.phase == "optimizer" then
        if is_multi_tensor(op.name) then return {} end
        calls = calls + op.calls
        ops[#ops + 1] = op
      end
    end
    if calls < MIN_CALLS then return {} end
    return {{
      severity = share >= HIGH_SHARE and "high" or "medium",
      op = ops[1].name,
      message = "The optimizer updates parameters one tensor at a time. Use a fused or foreach "
        .. "optimizer (e.g. torch.optim.AdamW(..., fused=True) or foreach=True).",
      evidence = string.format("optimizer phase %s per step (%s of the step) with %d op calls "
        .. "(%s) and no _foreach_ or _fused_ ops", advisor.ms(step.optimizer_ms),
        advisor.pct(share), calls, advisor.names(ops)),
      recipe = "fused-optimizer",
      expected_gain_ms = step.optimizer_ms * EXPECTED_SAVING,
    }}
  end,
}
