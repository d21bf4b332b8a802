-- A run whose reserved memory is close to the device's capacity is one input shape away from an
-- out-of-memory error, and the allocator already works hard (freeing cached blocks, retrying).
-- When much of the reserved memory is cached but unused, fragmentation is the cause and
-- expandable segments help; otherwise the activations themselves must shrink (bf16 autocast,
-- activation checkpointing, a smaller batch).

local NEAR_LIMIT = 0.90        -- reserved at peak, as a share of the device
local CRITICAL = 0.97
local FRAGMENTED = 0.10        -- reserved but unallocated, as a share of the device

return {
  id = "memory-near-limit",
  title = "Memory use is close to the device limit",
  check = function(facts)
    local memory = facts.memory
    if memory == nil or memory.peak_reserved_share == nil then return {} end
    if memory.peak_reserved_share < NEAR_LIMIT then return {} end

    local unused = advisor.share(memory.peak_reserved_mb - memory.peak_allocated_mb,
                                 memory.device_total_mb)
    local fragmented = unused >= FRAGMENTED and not facts.run.allocator.expandable_segments
    local message
    if fragmented then
      message = "Reserved memory is close to the device limit, much of it cached but unused. "
        .. "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to stop the cache fragmenting."
    else
      message = "Memory is close to the device limit. Shrink the activations: bf16 autocast, "
        .. "activation checkpointing of the largest blocks, or a smaller batch."
    end
    local retries = memory.alloc_retries  -- nil where not measured (a trace)
    local critical = memory.peak_reserved_share >= CRITICAL or (retries or 0) > 0
    return {{
      severity = critical and "high" or "medium",
      message = message,
      evidence = string.format("peak reserved %.0f MB (%s of %.0f MB), peak allocated %.0f MB, "
        .. "%s allocation retries", memory.peak_reserved_mb,
        advisor.pct(memory.peak_reserved_share), memory.device_total_mb,
        memory.peak_allocated_mb, retries and string.format("%d", retries) or "unmeasured"),
      recipe = fragmented and "expandable-segments" or "",
    }}
  end,
}
