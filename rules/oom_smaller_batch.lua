-- A run that ran out of memory: activations scale with the batch, so a batch k times smaller,
-- with its gradients accumulated over k micro-batches before each optimizer step, keeps the
-- effective batch (and so the training) while holding 1/k of the activations. k is the smallest
-- power of two whose saving covers the shortfall (2 where the shortfall was not measured), no
-- larger than the batch.

local MAX_SPLIT = 16  -- beyond it, each micro-batch is too small to keep the device busy

return {
  id = "oom-smaller-batch",
  title = "Out of memory: a smaller batch with gradient accumulation",
  check = function(facts)
    local oom, batch = facts.out_of_memory, facts.run.batch_size
    if oom == nil or batch == nil or batch < 2 or oom.phase == "optimizer" then return {} end
    local scaled = (oom.activations_mb or 0) + (oom.requested_mb or 0)
    if scaled <= 0 then return {} end
    local split = 2
    while oom.shortfall_mb ~= nil and scaled * (1 - 1 / split) < oom.shortfall_mb
        and split * 2 <= math.min(batch, MAX_SPLIT) do
      split = split * 2
    end
    local saving = scaled * (1 - 1 / split)
    local severity, fit = advisor.oom_fit(oom, saving)
    local micro = batch // split
    return {{
      severity = severity,
      path = oom.path,
      source = oom.source,  -- the user's line at the raise
      message = string.format("Train on micro-batches of %d instead of %d and accumulate their "
        .. "gradients over %d backward passes before each optimizer step (divide the loss by %d): "
        .. "the effective batch stays %d, the activations shrink to 1/%d.",
        micro, batch, split, split, batch, split),
      evidence = string.format("predicted saving %.0f MB: %d/%d of %s, %s", saving, split - 1,
        split, oom.activations_mb
          and string.format("the %.0f MB of activations and the %.0f MB request",
                            oom.activations_mb, oom.requested_mb or 0)
          or string.format("the %.0f MB request (the activations live then were not measured)",
                           oom.requested_mb or 0), fit),
      recipe = "",
      expected_saving_mb = saving,
    }}
  end,
}
