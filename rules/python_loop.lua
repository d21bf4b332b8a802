-- A Python loop in a module's forward: one line of the hot spot module runs many times each call,
-- issuing many small ops (slicing a span, .tolist() of two indices, a mean and an add per span).
-- Each op costs the interpreter and torch's dispatch far more than its arithmetic, so the step
-- waits on the host, not on the ops, and the module's hottest op (a tiny aten::add) says nothing
-- of where the time goes. Gathering all spans with one indexing op (or torch.compile, once the
-- loop no longer reads values back with .tolist()) replaces hundreds of ops with a few.
-- facts.hotspot.lines: the hot spot module's lines, read in labelled steps (script mode).

local MIN_SHARE = 0.05
local MEDIUM_SHARE = 0.15
local HIGH_SHARE = 0.30
local LOOP_RUNS = 16   -- runs a call: a loop's body, not a line that calls once
local MANY_OPS = 64    -- ATen ops a call from the one line
-- A small op does little work beside its dispatch: its host time is at most SMALL_OP_VIEWS
-- times a view op's (aten::slice, aten::view: no arithmetic) in the same labelled steps
-- (hotspot.view_op_us), which stretches with the loop's ops where the machine is slower or busier.
-- The fixed 50 us of before missed lightning_docs.py's aten::std of 3,072 elements at 55 us a call
-- on the quiet 2-core VM and 59-76 us under load, 27x its slices' 2 us; ops that do work stay above
-- 50 views: a decoder's matmuls of 0.2 ms a call are 100 slices' time (engine/bisect/host_loop.h,
-- whose loops the bisection weighs, takes the same limit).
local SMALL_OP_VIEWS = 50
local SMALL_OP_US = 50 -- the limit where the lines ran no view op: the quiet VM's
-- What one indexing op for all the slices saves: a span pooler over 16 x 48 spans took 62-64 ms
-- forward and backward as a loop and 0.61-0.65 ms vectorised, by hand on the 2-core VM
-- (benchmarks.md, "Costs of the script's own code"); 0.9 leaves room for a loop that vectorises
-- less well.
local EXPECTED_SAVING = 0.9
-- A backward this many times the module's forward is the loop's autograd nodes, not Python: a
-- forward's backward takes at most about 3x its time (the bisection's own limit for an
-- anomaly). bert_kw.py's attention pooler took 7.5 ms forward and 189 ms backward, its 512
-- slices each giving back a gradient of the whole sequence, summed one by one.
local BACKWARD_HEAVY = 3

-- A line of the loop worth naming: it runs many times a call and issues many ops, each small,
-- and holds MIN_SHARE of the step itself. A helper's lines called in the loop take part of it
-- each (seq_autoencoder.py's GRU update, 1-4 % a line beside the planted 35 %); a recurrence's
-- lines are no fix's to vectorise.
local function is_loop_line(line, small_op_us)
  local runs, ops = line.runs_per_call, line.ops_per_call
  return runs ~= nil and ops ~= nil and runs >= LOOP_RUNS and ops >= MANY_OPS
    and line.op_us <= small_op_us and line.share >= MIN_SHARE
end

local function file_name(source)
  return source.file:match("[^/]+$") or source.file
end

-- "train.py:42 runs 258 times a call and issues 513 small ops", the file left out where it is
-- the previous line's.
local function runs_clause(line, previous)
  local place = string.format(":%d", line.source.line)
  if previous == nil or previous.source.file ~= line.source.file then
    place = file_name(line.source) .. place
  end
  return string.format("%s runs %.0f times a call and issues %.0f small ops", place,
    line.runs_per_call, line.ops_per_call)
end

local function evidence_clause(line)
  return string.format("%s:%d (%s): %s a step (%s of the step), %.0f runs and %.0f ATen ops a "
    .. "call (%.0f a step), %.1f us an op on average", file_name(line.source), line.source.line,
    line.source.text, advisor.ms(line.ms), advisor.pct(line.share), line.runs_per_call,
    line.ops_per_call, line.ops, line.op_us)
end

-- Why the loop is slow: the interpreter and the dispatcher, or, where the module's backward far
-- outweighs its forward, the backward of the ops each iteration ran.
local function reason(facts, path)
  local module = facts.modules and facts.modules[path]
  if module ~= nil and module.forward_ms ~= nil and module.backward_ms ~= nil
      and module.backward_ms > BACKWARD_HEAVY * module.forward_ms then
    return string.format("; most of the time is the loop's backward: %s's backward takes %s a "
      .. "step against %s forward, each iteration's gradients computed and summed one by one (a "
      .. "slice's gradient is as large as the tensor it slices)", path,
      advisor.ms(module.backward_ms), advisor.ms(module.forward_ms))
  end
  return ", so the step waits on Python, not on the ops"
end

return {
  id = "python-loop",
  title = "A Python loop of small ops in a module's forward",
  check = function(facts)
    local hotspot = facts.hotspot
    if hotspot == nil or hotspot.lines == nil then return {} end
    local small_op_us = SMALL_OP_US
    if hotspot.view_op_us ~= nil then small_op_us = SMALL_OP_VIEWS * hotspot.view_op_us end
    -- Every loop line of the module, heaviest first: a loop's body is often more than one line
    -- (bert_kw.py's attention pooler scores the tokens on one and sums them on the next, 16 % of
    -- the step each), and vectorising one of them saves only its part.
    local loop, ms, share = {}, 0, 0
    for _, line in ipairs(hotspot.lines) do
      if is_loop_line(line, small_op_us) then
        loop[#loop + 1] = line
        ms, share = ms + line.ms, share + line.share
      end
    end
    if #loop == 0 then return {} end
    local runs, evidence = {}, {}
    for i, line in ipairs(loop) do
      runs[i] = runs_clause(line, loop[i - 1])
      evidence[i] = evidence_clause(line)
    end
    local where, it, together = "A Python loop", "it", ""
    if #loop > 1 then
      where, it = "Python loops", "them"
      together = string.format("; together %s a step (%s of the step)", advisor.ms(ms),
        advisor.pct(share))
    end
    return {{
      severity = advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE),
      path = hotspot.path,
      message = string.format("%s in %s's forward: %s%s. Vectorise %s (one op over every "
        .. "iteration: an index tensor for all the slices, a matmul or cumulative op for a "
        .. "recurrence; no .tolist() or .item() in the loop), or compile the module with "
        .. "torch.compile once the loop reads no values back.",
        where, hotspot.path, table.concat(runs, ", and "), reason(facts, hotspot.path), it),
      evidence = table.concat(evidence, "; ") .. together,
      source = loop[1].source,
      expected_gain_ms = ms * EXPECTED_SAVING,
    }}
  end,
}
