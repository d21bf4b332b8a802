-- When the training loop waits for the next batch, the GPU waits with it. More DataLoader
-- workers (and persistent_workers, prefetch_factor) prepare batches in parallel with the step.
-- facts.data is the step's data phase (docs/facts.md): measured when the workload has an input
-- stage (docs/workload.md), whose workers the recipe raises; without one it is absent.

local MIN_WAIT_SHARE = 0.10   -- waiting a tenth of the step for data
local HIGH_WAIT_SHARE = 0.30
local EXPECTED_HIDDEN = 0.8   -- enough workers hide most of the wait behind the step

return {
  id = "data-loader-stall",
  title = "The step waits for input data",
  check = function(facts)
    local data = facts.data
    if data == nil or data.wait_ms == nil then return {} end
    local share = advisor.share(data.wait_ms, facts.step.median_ms)
    if share < MIN_WAIT_SHARE then return {} end
    local workers = data.workers and string.format(" with %d DataLoader workers", data.workers) or ""
    return {{
      severity = advisor.severity(share, HIGH_WAIT_SHARE, MIN_WAIT_SHARE),
      message = "The step waits for its next batch. Prepare batches in parallel: more "
        .. "DataLoader workers, persistent_workers=True and a prefetch_factor of 2 or more.",
      evidence = string.format("%s per step waiting for data (%s of the step)%s",
        advisor.ms(data.wait_ms), advisor.pct(share), workers),
      recipe = "dataloader-workers",
      expected_gain_ms = data.wait_ms * EXPECTED_HIDDEN,
    }}
  end,
}
