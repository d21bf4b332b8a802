-- A Python loop in a module's forward: one line of the hot spot module runs many times each call,
-- issuing many small ops (slicing a span, .tolist() of two indices, a mean and an add per span).
-- Each op costs the interpreter and torch's dispatch far more than its arithmetic, so the step
-- waits on the host, not on the ops, and the module's hottest op (a tiny aten::add) says nothing
-- of where the time goes. Gathering all spans with one indexing op (or torch.compile, once the
-- loop no longer reads values back with .tolist()) replaces hundreds of ops with a few.
-- Small is judged per op, not by the line's mean: a loop whose time is one costly op repeated every
-- iteration among cheap slices (bench/user_trial/seq_autoencoder.py:70 recomputes a whole
-- sequence's input projection, an aten::matmul, in each of its 48 iterations and slices one step
-- of it) averages 111 us an op, under the small limit, yet waits on that op, not on Python. Such a
-- line gets its own finding here: the op, its calls and share, and the advice that fits a repeated
-- costly op (do it once: hoist it where it is loop-invariant, else one op over all iterations).
-- It is still the loop's line that holds the time, and no other rule names a line of the user's
-- code for a repeated op. The ops' times cannot tell a loop-invariant op from a recurrence's
-- (seq_autoencoder.py:26's h @ w_hh, which needs the step before): the finding asks, and says so.
-- A loop whose ops all do work (a 2 ms matmul per head, the mean over the small limit too) gets
-- neither: batching ops that work saves little of their time.
-- facts.hotspot.lines: the hot spot module's lines, read in labelled steps (script mode), each with
-- its ops by name (op_kinds: calls a step, us a call, share of the line's op time).

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
-- The line waits on Python where at least this much of its ops' time is in small ops; one costly
-- op holds it where that op's calls hold at least this much.
local MOST = 0.5
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

-- A line of a loop worth naming: it runs many times a call, issues many ops, and holds MIN_SHARE
-- of the step itself. A helper's lines called in the loop take part of it each
-- (seq_autoencoder.py's GRU update, 1-4 % a line beside the planted 35 %); a recurrence's lines
-- are no fix's to vectorise.
local function is_loop_line(line)
  local runs, ops = line.runs_per_call, line.ops_per_call
  return runs ~= nil and ops ~= nil and runs >= LOOP_RUNS and ops >= MANY_OPS
    and line.share >= MIN_SHARE
end

-- The part of the line's op time in ops of at most `small_op_us` a call, and the costliest op over
-- it (op_kinds come costliest first).
local function split_by_size(line, small_op_us)
  local small_share, costly = 0, nil
  for _, kind in ipairs(line.op_kinds) do
    if kind.us <= small_op_us then
      small_share = small_share + kind.share
    elseif costly == nil then
      costly = kind
    end
  end
  return small_share, costly
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

local function evidence_clause(line, small_share, small_op_us)
  return string.format("%s:%d (%s): %s a step (%s of the step), %.0f runs and %.0f ATen ops a "
    .. "call (%.0f a step), %.1f us an op on average, %s of their time in ops of at most %.0f us "
    .. "a call", file_name(line.source), line.source.line, line.source.text, advisor.ms(line.ms),
    advisor.pct(line.share), line.runs_per_call, line.ops_per_call, line.ops, line.op_us,
    advisor.pct(small_share), small_op_us)
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

-- The loop of small ops, over every line of it: `loop` holds {line, small_share}, heaviest first.
local function small_ops_loop(facts, hotspot, loop, small_op_us)
  local runs, evidence, ms, share = {}, {}, 0, 0
  for i, entry in ipairs(loop) do
    runs[i] = runs_clause(entry.line, loop[i - 1] and loop[i - 1].line)
    evidence[i] = evidence_clause(entry.line, entry.small_share, small_op_us)
    ms, share = ms + entry.line.ms, share + entry.line.share
  end
  local where, it, together = "A Python loop", "it", ""
  if #loop > 1 then
    where, it = "Python loops", "them"
    together = string.format("; together %s a step (%s of the step)", advisor.ms(ms),
      advisor.pct(share))
  end
  return {
    severity = advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE),
    path = hotspot.path,
    message = string.format("%s in %s's forward: %s%s. Vectorise %s (one op over every "
      .. "iteration: an index tensor for all the slices, a matmul or cumulative op for a "
      .. "recurrence; no .tolist() or .item() in the loop), or compile the module with "
      .. "torch.compile once the loop reads no values back.",
      where, hotspot.path, table.concat(runs, ", and "), reason(facts, hotspot.path), it),
    evidence = table.concat(evidence, "; ") .. together,
    source = loop[1].line.source,
    expected_gain_ms = ms * EXPECTED_SAVING,
  }
end

local function repeats_costly_op(hotspot, line, costly, small_op_us)
  local source, runs, file = line.source, line.runs_per_call, file_name(line.source)
  return {
    severity = advisor.severity(line.share, HIGH_SHARE, MEDIUM_SHARE),
    path = hotspot.path,
    op = costly.name,  -- the op the loop repeats (the report's first sentence names it)
    message = string.format("A loop in %s's forward: %s:%d runs %.0f times a call and repeats "
      .. "one costly op, %s (%.0f calls a step, %s of the line's op time), among small ones: its "
      .. "time is that op's, not Python's. Loop-invariant work? Hoist the op out of the loop where "
      .. "its inputs do not change from one iteration to the next, or do it once over all "
      .. "iterations (one op on the stacked inputs) where no iteration needs the one before; in "
      .. "a recurrence it is the loop's own work.",
      hotspot.path, file, source.line, runs, costly.name, costly.calls,
      advisor.pct(costly.share)),
    evidence = string.format("%s:%d (%s): %s a step (%s of the step), %.0f runs and %.0f "
      .. "ATen ops a call; %s %.0f us a call, over the small op's %.0f us, %s of the line's op "
      .. "time", file, source.line, source.text, advisor.ms(line.ms), advisor.pct(line.share),
      runs, line.ops_per_call, costly.name, costly.us, small_op_us, advisor.pct(costly.share)),
    source = source,
    -- Hoisting runs the op once a call instead of every iteration: what the line saves of the
    -- op's part where the op is loop-invariant, as the planted decoder's is (one op over all
    -- iterations saves less where it is not).
    expected_gain_ms = line.ms * costly.share * (1 - 1 / runs),
  }
end

return {
  id = "python-loop",
  title = "A Python loop of small ops, or of one costly op, in a module's forward",
  check = function(facts)
    local hotspot = facts.hotspot
    if hotspot == nil or hotspot.lines == nil then return {} end
    local small_op_us = SMALL_OP_US
    if hotspot.view_op_us ~= nil then small_op_us = SMALL_OP_VIEWS * hotspot.view_op_us end
    -- Every loop line of small ops in the module, heaviest first: a loop's body is often more
    -- than one line (bert_kw.py's attention pooler scores the tokens on one and sums them on the
    -- next, 16 % of the step each), and vectorising one of them saves only its part. Failing
    -- those, the first line that repeats one costly op.
    local loop, repeated = {}, nil
    for _, line in ipairs(hotspot.lines) do
      if is_loop_line(line) then
        local small_share, costly = split_by_size(line, small_op_us)
        if small_share >= MOST then
          loop[#loop + 1] = {line = line, small_share = small_share}
        elseif repeated == nil and costly ~= nil and costly.share >= MOST
            and line.op_us <= small_op_us then
          repeated = {line = line, op = costly}
        end
      end
    end
    if #loop > 0 then return {small_ops_loop(facts, hotspot, loop, small_op_us)} end
    if repeated ~= nil then
      return {repeats_costly_op(hotspot, repeated.line, repeated.op, small_op_us)}
    end
    return {}
  end,
}
