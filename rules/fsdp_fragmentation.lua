-- FSDP gathers each unit's parameters for its forward and backward and frees them after: blocks
-- of the same few sizes come and go every step, and the caching allocator's segments fragment,
-- so that much more is reserved than allocated. Expandable segments let segments grow in place
-- instead. memory-near-limit names the same fix when the device is nearly full; this rule does
-- for FSDP before it is.

local UNUSED = 0.25            -- reserved but not allocated at peak, of the reserved
local MIN_UNUSED_MB = 1024     -- and at least this much

return {
  id = "fsdp-fragmentation",
  title = "FSDP's gathers fragment the allocator's cache",
  check = function(facts)
    local s, memory = facts.training_state, facts.memory
    if s == nil or memory == nil or s.wrapper ~= "FullyShardedDataParallel" then return {} end
    if facts.run.allocator ~= nil and facts.run.allocator.expandable_segments then return {} end
    local unused = memory.peak_reserved_mb - memory.peak_allocated_mb
    if unused < MIN_UNUSED_MB or advisor.share(unused, memory.peak_reserved_mb) < UNUSED then
      return {}
    end
    return {{
      severity = "medium",
      message = "Much more memory is reserved than allocated under FSDP: its gathered "
        .. "parameters come and go every step and fragment the allocator's cache. Set "
        .. "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
      evidence = string.format("peak reserved %.0f MiB, peak allocated %.0f MiB: %.0f MiB (%s) "
        .. "cached but unused", memory.peak_reserved_mb, memory.peak_allocated_mb, unused,
        advisor.pct(advisor.share(unused, memory.peak_reserved_mb))),
      recipe = "expandable-segments",
    }}
  end,
}
