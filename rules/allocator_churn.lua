-- After warm-up a training step with fixed shapes reuses the caching allocator's blocks and
-- calls cudaMalloc no more. cudaMalloc calls inside the measured window mean shapes change from
-- step to step (variable sequence lengths, ragged batches) or the cache is fragmented;
-- allocation retries mean the allocator had to free its whole cache and try again, which
-- synchronises the device. Expandable segments let the cache grow in place instead of
-- fragmenting; padding inputs to a few fixed shapes removes the cause.

local MIN_ALLOCS_PER_STEP = 1   -- a cudaMalloc every step or more
local FRAGMENTATION_HINT = 0.2  -- reserved but unallocated memory, as a share of reserved

return {
  id = "allocator-churn",
  title = "The caching allocator keeps allocating",
  check = function(facts)
    local memory = facts.memory
    if memory == nil or (facts.run.window_steps or 0) <= 0 then return {} end
    local steps = facts.run.window_steps
    local allocs_per_step = memory.device_allocs / steps
    -- A trace does not record retries (nil): only the cudaMalloc calls count then.
    local retries = memory.alloc_retries or 0
    if retries == 0 and allocs_per_step < MIN_ALLOCS_PER_STEP then return {} end

    local expandable = facts.run.allocator.expandable_segments
    local message
    if expandable then
      message = "Memory is allocated from the device every step although expandable segments "
        .. "are on: input shapes probably change. Pad or bucket inputs to a few fixed shapes."
    else
      message = "The caching allocator allocates from the device every step, so shapes change "
        .. "or its cache fragments. Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, and "
        .. "pad or bucket inputs to a few fixed shapes."
    end
    local unused = advisor.share(memory.peak_reserved_mb - memory.peak_allocated_mb,
                                 memory.peak_reserved_mb)
    local fragmentation = unused >= FRAGMENTATION_HINT
      and string.format("; %s of reserved memory unused at peak", advisor.pct(unused)) or ""
    local retries_text = memory.alloc_retries and string.format("%d", memory.alloc_retries)
      or "unmeasured"
    return {{
      severity = retries > 0 and "high" or "medium",
      message = message,
      evidence = string.format("%d cudaMalloc calls and %s allocation retries in %d steps "
        .. "(allocator: %s)%s", memory.device_allocs, retries_text, steps,
        facts.run.allocator.conf ~= "" and facts.run.allocator.conf or "defaults", fragmentation),
      recipe = expandable and "" or "expandable-segments",
    }}
  end,
}
