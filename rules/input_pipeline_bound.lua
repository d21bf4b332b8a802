-- When every worker of the input stage is busy, there are as many workers as cores, and the
-- step still waits for its batch, no worker count can help: the machine cannot prepare batches
-- faster than it does. The pipeline itself must get cheaper: its heaviest transform first.
-- data-loader-stall stays silent then (more workers is its advice).

local MIN_WAIT_SHARE = 0.10   -- the step waits a tenth of its time for data
local HIGH_WAIT_SHARE = 0.30
local BUSY = 0.90             -- the workers' busy share of the window (data_loader_stall.lua too)

return {
  id = "input-pipeline-bound",
  title = "The input pipeline, not the worker count, limits the step",
  check = function(facts)
    local data = facts.data
    if data == nil or data.stage == nil or data.workers == nil or data.workers == 0 then
      return {}
    end
    local stage = data.stage
    if stage.worker_busy_share == nil or stage.worker_busy_share < BUSY then return {} end
    if data.workers < stage.cores then return {} end
    local share = data.wait_share or 0  -- of the profiled step the wait was measured in
    if share < MIN_WAIT_SHARE then return {} end
    local heaviest = stage.pieces[1]
    local where = heaviest and string.format("; the heaviest piece: %s, %s of the batch",
      advisor.stage_piece(heaviest), advisor.pct(heaviest.share)) or ""
    return {{
      severity = advisor.severity(share, HIGH_WAIT_SHARE, MIN_WAIT_SHARE),
      message = "Every input worker is busy and there are as many as cores, yet the step waits for "
        .. "its batch: more workers cannot help. Make the input stage cheaper, starting with its "
        .. "heaviest transform (crop first, narrow dtypes, fewer passes).",
      evidence = string.format("%d workers on %d cores busy %s of the window; the step waits %s "
        .. "(%s of it); one batch takes %s%s", data.workers, stage.cores,
        advisor.pct(stage.worker_busy_share), advisor.ms(data.wait_ms), advisor.pct(share),
        advisor.ms(stage.batch_ms), where),
      recipe = "",
      expected_gain_ms = nil,
    }}
  end,
}
