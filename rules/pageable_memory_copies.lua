-- Copies from pageable (not pinned) host memory are staged through a driver buffer and block the
-- host: they run at a fraction of the link's bandwidth and cannot overlap with compute. Pinning
-- the source (DataLoader(pin_memory=True), tensor.pin_memory()) and copying with
-- non_blocking=True makes them fast and asynchronous.

local MIN_SHARE = 0.02        -- pageable copies under 2% of the step are not worth pinning
local MEDIUM_SHARE = 0.05
local HIGH_SHARE = 0.20
local EXPECTED_SAVING = 0.5   -- pinned copies run about twice as fast, and overlap

return {
  id = "pageable-memory-copies",
  title = "Copies from pageable host memory",
  check = function(facts)
    if facts.copies == nil then return {} end
    local ms, mb, largest = 0, 0, nil
    for _, copy in ipairs(facts.copies) do
      if copy.pageable then
        ms = ms + copy.ms
        mb = mb + copy.mb_per_step
        if largest == nil or copy.ms > largest.ms then largest = copy end
      end
    end
    local share = advisor.share(ms, facts.step.ms)
    if largest == nil or share < MIN_SHARE then return {} end
    local where = largest.path ~= "" and ("in " .. largest.path) or "outside the model (the input batch)"
    return {{
      severity = advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE),
      path = largest.path,
      op = largest.op,
      message = "Host-to-device copies read pageable memory, which is slow and blocks the host. "
        .. "Pin the source (DataLoader(pin_memory=True) or tensor.pin_memory()) and copy with "
        .. "non_blocking=True.",
      evidence = string.format("%.2f MB per step from pageable memory in %s (%s of the step); "
        .. "the largest is %s %s", mb, advisor.ms(ms), advisor.pct(share), largest.op, where),
      recipe = "pin-memory",
      expected_gain_ms = ms * EXPECTED_SAVING,
    }}
  end,
}
