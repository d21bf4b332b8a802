-- A run that ran out of memory computing in float32: under bf16 autocast the activations the
-- forward keeps for backward, and the failed request itself (an activation, where it failed in a
-- forward or backward), take half the bytes. Parameters, gradients and optimizer state stay
-- float32, so only the activations (allocated less the training state) count.

return {
  id = "oom-bf16-autocast",
  title = "Out of memory: bf16 autocast halves the activations",
  check = function(facts)
    local oom = facts.out_of_memory
    if oom == nil or facts.run.dtype ~= "float32" or oom.phase == "optimizer" then return {} end
    local halved = (oom.activations_mb or 0) + (oom.requested_mb or 0)
    if halved <= 0 then return {} end
    local saving = halved / 2
    local severity, fit = advisor.oom_fit(oom, saving)
    local what = oom.activations_mb
      and string.format("half of the %.0f MB of activations and of the %.0f MB request",
                        oom.activations_mb, oom.requested_mb or 0)
      or string.format("half of the %.0f MB request (the activations live then were not "
                       .. "measured)", oom.requested_mb or 0)
    return {{
      severity = severity,
      path = oom.path,
      source = oom.source,  -- the user's line at the raise
      message = "The model computes in float32. Run the forward and the loss under "
        .. "torch.autocast(device_type, dtype=torch.bfloat16): its activations take half the "
        .. "memory (parameters and optimizer state stay float32).",
      evidence = string.format("predicted saving %.0f MB: %s, %s", saving, what, fit),
      recipe = "bf16-autocast",
      expected_saving_mb = saving,
    }}
  end,
}
