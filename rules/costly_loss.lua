-- A script's loss, computed outside the model: what runs from the model's forward returning to
-- backward() (the loss function, metrics, logging), and the backward nodes of its ops
-- (facts.loss). Written as a Python loop over the batch (a triplet loss's hardest positive and
-- negative, anchor by anchor) it runs hundreds of small ops a step, each paying the interpreter
-- and torch's dispatch, forward and backward: one op over the whole batch does the same work. A
-- metric read every step (.item(), .tolist(), .cpu()) waits for the device and copies.

local LOW_SHARE = 0.10
local MEDIUM_SHARE = 0.25
local HIGH_SHARE = 0.50
-- A line that runs this many times a step is a loop's body: a loss's own lines run once a step
-- (once per micro-batch with gradient accumulation, rarely beyond a few).
local LOOP_RUNS = 16
-- Of a loop's lines' time, what computing the loss over the whole batch saves: a batch-hard
-- triplet loss over 128 anchors took 9.4-10.0 ms forward and backward as a loop and 0.38-0.39 ms
-- with masks over the distance matrix, by hand on the 2-core VM (benchmarks.md, "Costs of the
-- script's own code"); 0.9 leaves room for a loss that vectorises less well.
local EXPECTED_SAVING = 0.9

local function where(source)
  local file = source.file:match("[^/]+$") or source.file
  return string.format("%s:%d (%s)", file, source.line, source.text)
end

return {
  id = "costly-loss",
  title = "The loss, computed outside the model, is a large part of the step",
  check = function(facts)
    local loss = facts.loss
    if loss == nil or loss.share < LOW_SHARE then return {} end
    local evidence = string.format(
      "the loss: %s a step from the forward's return to backward() and %s of its backward nodes, "
        .. "%s of the step", advisor.ms(loss.ms), advisor.ms(loss.backward_ms),
      advisor.pct(loss.share))
    -- The heaviest line that runs ops: a loop's header (for i in range(n)) holds the loop's own
    -- Python and no op, and the line to rewrite is in its body.
    local line = nil
    for _, each in ipairs(loss.lines) do
      if line == nil and each.ops > 0 then line = each end
    end
    line = line or loss.lines[1]
    local loop_ms = 0
    for _, each in ipairs(loss.lines) do
      if each.runs >= LOOP_RUNS then loop_ms = loop_ms + each.ms end
    end
    local message
    if line == nil then
      message = "The code between the model's forward and backward() takes a large part of the "
        .. "step. Move what the step does not need out of it (metrics, logging, .item() reads: "
        .. "every few steps, or after the epoch), or compile the loss function with torch.compile."
    elseif line.runs >= LOOP_RUNS then
      message = string.format("The code between the model's forward and backward() is a Python "
        .. "loop: %s runs %.0f times a step, %.0f small ops (%.0f us each on average), forward and "
        .. "backward. Compute it over the whole batch at once (masks and reductions instead of a "
        .. "loop over its rows or classes), or compile it with torch.compile; a metric can also "
        .. "wait for every few steps.", where(line.source), line.runs, line.ops, line.op_us)
    else
      message = string.format("Most of the code between the model's forward and backward() is "
        .. "at %s. If it is a metric or logging, move it out of the step (every few steps, or "
        .. "after the epoch: an .item() waits for the device); if it is the loss, compile the "
        .. "loss function with torch.compile.", where(line.source))
    end
    if line ~= nil then
      evidence = evidence .. string.format("; its heaviest line with ops, %s: %s (%s of the "
        .. "step), %.0f runs, %.0f ops", where(line.source), advisor.ms(line.ms),
        advisor.pct(line.share), line.runs, line.ops)
    end
    return {{
      severity = advisor.severity(loss.share, HIGH_SHARE, MEDIUM_SHARE),
      message = message,
      evidence = evidence,
      source = line and line.source or nil,
      expected_gain_ms = loop_ms > 0 and loop_ms * EXPECTED_SAVING or nil,
    }}
  end,
}
