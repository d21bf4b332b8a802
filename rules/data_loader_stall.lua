-- When the training loop waits for the next batch, the GPU waits with it. More DataLoader
-- workers (and persistent_workers, prefetch_factor) prepare batches in parallel with the step.
-- facts.data is the step's data phase (docs/facts.md): measured when the workload has an input
-- stage (docs/workload.md), whose workers the recipe raises; without one it is absent. Where the
-- workers are all busy on every core, input-pipeline-bound speaks instead: more workers cannot
-- help there. Where they are mostly idle, the wait is the main process's own, and this rule says
-- so with no recipe (data.main_process_work).

local MIN_WAIT_SHARE = 0.10   -- waiting a tenth of the step for data
local HIGH_WAIT_SHARE = 0.30
local EXPECTED_HIDDEN = 0.8   -- enough workers hide most of the wait behind the step
local BUSY = 0.90             -- the workers' busy share (input_pipeline_bound.lua)

-- The profiled window measures the input stage inside its workers, which slows them, so its wait
-- can be the measurement's own: on an H200 a timm ResNet-50 waited 11.3 ms a step there (12 %),
-- 2.6 ms in the unprofiled steps, 1.1 ms by hand, and more workers made it 0.61x as fast. The
-- wait is taken as the measurement's where two others agree there is none: the unprofiled steps
-- waited less than MIN_WAIT_SHARE of their mean step, and the workers supply a batch faster than
-- the step computes one (data.workers_keep_up: the stage's batch time over the workers; 248 ms /
-- 4 against a 67 ms step there). Neither alone: the unprofiled steps follow a pause in which the
-- workers refill their prefetch (an EfficientNet decoding JPEGs waited 26 ms a step by hand, 3.0
-- ms there), and the stage's batch time says nothing of a wait on the main process.
local function measurement_only(facts)
  local data = facts.data
  if data.unprofiled_wait_ms == nil then return false end
  local unprofiled_share = data.unprofiled_wait_ms / (facts.step.mean_ms or 0)
  return data.workers_keep_up == true and unprofiled_share < MIN_WAIT_SHARE
end

local function pipeline_bound(data)
  local stage = data.stage
  return stage ~= nil and data.workers ~= nil and data.workers > 0
    and stage.worker_busy_share ~= nil and stage.worker_busy_share >= BUSY
    and data.workers >= stage.cores
end

return {
  id = "data-loader-stall",
  title = "The step waits for input data",
  check = function(facts)
    local data = facts.data
    if data == nil or data.wait_ms == nil then return {} end
    local share = data.wait_share or 0  -- of the profiled step the wait was measured in
    if share < MIN_WAIT_SHARE or pipeline_bound(data) or measurement_only(facts) then return {} end
    -- Workers busy under half the window that supply a batch faster than the step computes
    -- one do not hold the step up: its data phase is the main process's own work, which more
    -- workers cannot shorten (data.main_process_work: engine/model/step.h's
    -- DataPhaseIsMainProcessWork, by which the report's step breakdown names the phase too).
    -- bench/user_trial/lightning_docs.py (2026-11-30): 2 workers busy 3 % of the window, 0.9 ms
    -- a batch, a data phase of 4.1 ms in a 30 ms step; by hand 3.6 ms, 2.1 of it in the
    -- DataLoader iterator's __next__, and with 4 workers the step was no faster (29.0 ms
    -- against 28.3).
    if data.main_process_work == true then
      local stage = data.stage
      return {{
        severity = advisor.severity(share, HIGH_WAIT_SHARE, MIN_WAIT_SHARE),
        message = "The step's data phase is the main process's own work, not a wait for its "
          .. "DataLoader workers: they are idle most of the time and make a batch faster than the "
          .. "step computes one, so more workers cannot shorten it. It is receiving each batch "
          .. "from the workers and the loop's code between the optimizer step and the next "
          .. "forward (a trainer's hooks and logging, zero_grad, the scheduler).",
        evidence = string.format("%s per step from the optimizer step's end to the next forward "
          .. "(%s of the step) with %d DataLoader workers busy %s of the window; one of them "
          .. "makes a batch in %s", advisor.ms(data.wait_ms), advisor.pct(share), data.workers,
          advisor.pct(stage.worker_busy_share), advisor.ms(stage.batch_ms)),
        recipe = "",
        expected_gain_ms = nil,
      }}
    end
    local workers = data.workers and string.format(" with %d DataLoader workers", data.workers) or ""
    local message = "The step waits for its next batch. Prepare batches in parallel: more "
      .. "DataLoader workers, persistent_workers=True and a prefetch_factor of 2 or more."
    if data.workers == 0 then
      message = "The step prepares its batches itself, on the main process (0 workers): decoding "
        .. "and augmentation hold up every step. Prepare them in parallel DataLoader workers "
        .. "(num_workers, persistent_workers=True, a prefetch_factor of 2 or more)."
    end
    local heaviest = ""
    if data.stage ~= nil and data.stage.pieces[1] ~= nil then
      local piece = data.stage.pieces[1]
      heaviest = string.format("; the heaviest piece of the batch: %s, %s of it",
        advisor.stage_piece(piece), advisor.pct(piece.share))
    end
    return {{
      severity = advisor.severity(share, HIGH_WAIT_SHARE, MIN_WAIT_SHARE),
      message = message,
      evidence = string.format("%s per step waiting for data (%s of the step)%s%s",
        advisor.ms(data.wait_ms), advisor.pct(share), workers, heaviest),
      recipe = "dataloader-workers",
      expected_gain_ms = data.wait_ms * EXPECTED_HIDDEN,
    }}
  end,
}
