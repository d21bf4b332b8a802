-- Under gradient accumulation (several forward and backward passes per optimizer step),
-- DistributedDataParallel all-reduces the gradients in every backward unless told otherwise:
-- only the sum after the last micro-step is needed. model.no_sync() around all but the last
-- micro-step accumulates locally and synchronises once per step. facts.training_state (script
-- mode) has the first step's micro-steps and how many of them synchronised.

local HIGH_SHARE = 0.20        -- the collectives saved, as a share of the step
local MEDIUM_SHARE = 0.05

return {
  id = "gradient-sync-every-micro-step",
  title = "Gradients are all-reduced on every micro-step of gradient accumulation",
  check = function(facts)
    local s = facts.training_state
    if s == nil or s.wrapper ~= "DistributedDataParallel" then return {} end
    if s.micro_steps < 2 or s.synced_micro_steps < s.micro_steps then return {} end
    -- The communication each rank spends per step, where the ranks were measured side by side.
    local comm_ms
    for _, rank in ipairs(facts.ranks or {}) do comm_ms = math.max(comm_ms or 0, rank.comm_ms) end
    local saved_ms = comm_ms and comm_ms * (s.micro_steps - 1) / s.micro_steps
    local share = saved_ms and advisor.share(saved_ms, facts.step.ms)
    return {{
      severity = share and advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE) or "medium",
      message = string.format("Each of the %d micro-steps of an optimizer step all-reduces its "
        .. "gradients, and only their sum after the last is used. Run the forward and backward "
        .. "of all but the last micro-step under `with model.no_sync():` (DistributedDataParallel "
        .. "then accumulates them locally and synchronises once).", s.micro_steps),
      evidence = string.format("%d of %d forward passes in the first step synchronised "
        .. "gradients%s", s.synced_micro_steps, s.micro_steps,
        comm_ms and string.format("; %s per step in collectives, about %s of it saved",
                                  advisor.ms(comm_ms), advisor.ms(saved_ms)) or ""),
      recipe = "ddp-no-sync",
      expected_gain_ms = saved_ms,
    }}
  end,
}
