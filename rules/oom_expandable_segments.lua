-- A run that ran out of memory while the allocator's cache held much more than its tensors: the
-- cached blocks were too small or too scattered for the request. Expandable segments grow one
-- segment in place, so the request can use what the cache holds unused.

local UNUSED = 0.25  -- reserved but not allocated, of the reserved, that counts as fragmented

return {
  id = "oom-expandable-segments",
  title = "Out of memory: the allocator's cache is fragmented",
  check = function(facts)
    local oom = facts.out_of_memory
    if oom == nil or oom.fragmentation_mb == nil or oom.expandable_segments then return {} end
    local unused = oom.fragmentation_mb
    local covers = oom.shortfall_mb ~= nil and oom.shortfall_mb > 0 and unused >= oom.shortfall_mb
    if not covers and advisor.share(unused, oom.reserved_mb) < UNUSED then return {} end
    local severity, fit = advisor.oom_fit(oom, unused)
    return {{
      severity = severity,
      message = "The allocator held memory no tensor used when the allocation failed. Set "
        .. "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so that requests can use it.",
      evidence = string.format("predicted saving %.0f MB: reserved %.0f MB, allocated %.0f MB, "
        .. "largest free block %s, %s", unused, oom.reserved_mb, oom.allocated_mb,
        oom.largest_free_block_mb and string.format("%.0f MB", oom.largest_free_block_mb)
          or "not known", fit),
      recipe = "expandable-segments",
      expected_saving_mb = unused,
    }}
  end,
}
