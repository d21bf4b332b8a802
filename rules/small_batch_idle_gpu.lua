-- A GPU that is idle for much of the step while most of its memory is free is running too
-- little work per step: a larger batch fills the idle time at almost no extra step time, so
-- throughput (samples per second) grows. The learning rate usually needs scaling with it, which
-- is why this is medium, not high. Where even four times the activations would fit, a second
-- finding names batch-size-x4 as well, so the autotester measures both (they never combine, and
-- an x4 worker that runs out of memory just fails that candidate).

local MAX_BUSY = 0.60            -- the GPU computes under 60% of the step
local MAX_MEMORY_SHARE = 0.45    -- a doubled batch must still fit: activations roughly double
local MAX_MEMORY_SHARE_X4 = 0.22 -- a quadrupled batch must still fit
local HIGH_IDLE_BUSY = 0.30      -- busy under 30%: most of the step is wasted
local EXPECTED_FILLED = 0.5      -- of the idle time, per step at the current batch size

return {
  id = "small-batch-idle-gpu",
  title = "A small batch leaves the GPU idle",
  check = function(facts)
    local gpu, memory = facts.gpu, facts.memory
    if gpu == nil or memory == nil or memory.peak_reserved_share == nil then return {} end
    if gpu.busy_fraction >= MAX_BUSY or memory.peak_reserved_share >= MAX_MEMORY_SHARE then
      return {}
    end
    local batch = facts.run.batch_size and string.format(" at batch size %d", facts.run.batch_size) or ""
    local evidence = string.format("GPU busy %s of a %s step%s; peak reserved memory %s of %.0f MB",
      advisor.pct(gpu.busy_fraction), advisor.ms(facts.step.ms), batch,
      advisor.pct(memory.peak_reserved_share), memory.device_total_mb)
    local findings = {{
      severity = gpu.busy_fraction < HIGH_IDLE_BUSY and "high" or "medium",
      message = "The GPU is idle for much of the step and most of its memory is free. Double the "
        .. "batch size (and scale the learning rate) to do more work per step.",
      evidence = evidence,
      recipe = "batch-size-x2",
      expected_gain_ms = gpu.idle_ms and gpu.idle_ms * EXPECTED_FILLED,
    }}
    if memory.peak_reserved_share < MAX_MEMORY_SHARE_X4 then
      findings[2] = {
        severity = "low",
        message = "Memory would even hold four times the batch: quadrupling it (and scaling the "
          .. "learning rate) may fill more of the idle time than doubling.",
        evidence = evidence,
        recipe = "batch-size-x4",
      }
    end
    return findings
  end,
}
