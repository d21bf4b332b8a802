-- A run that ran out of memory in a module instance's forward: with activation checkpointing the
-- instance keeps only its inputs for backward and recomputes the rest there, at the cost of one
-- more forward of it. What it keeps was not measured in the run that failed, so the saving is
-- not predicted; --autotest measures it in a run that fits (activation-checkpointing: the
-- recompute's cost, and on CUDA the peak beside it).

return {
  id = "oom-activation-checkpointing",
  title = "Out of memory: checkpoint the instance that was running",
  check = function(facts)
    local oom = facts.out_of_memory
    if oom == nil or oom.phase ~= "forward" or oom.path == "" then return {} end
    return {{
      severity = "medium",
      path = oom.path,
      source = oom.source,  -- the user's line at the raise
      recipe = "activation-checkpointing",
      message = string.format("Wrap %s's forward in torch.utils.checkpoint.checkpoint(..., "
        .. "use_reentrant=False): it keeps only its inputs for backward and recomputes its "
        .. "activations there, one more forward of it per step.", oom.path),
      evidence = string.format("the allocation failed in the forward of %s%s, asking for %s; "
        .. "the activations it keeps were not measured in this run", oom.path,
        oom.source and string.format(" (%s:%d)", oom.source.file, oom.source.line) or "",
        oom.requested_mb and string.format("%.0f MB", oom.requested_mb) or "an unknown size"),
    }}
  end,
}
