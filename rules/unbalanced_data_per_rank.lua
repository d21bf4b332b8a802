-- A straggler that is slower everywhere, not in one module, is given more work than the others:
-- longer sequences, larger images or more tokens in its batches (an uneven sampler or
-- bucketing), or a slower input pipeline (its DataLoader waits longer). Every rank then waits
-- for it at each collective. Balance the work per rank: a sampler that gives every rank the
-- same number of tokens, or padding to a common length.

local MIN_LATE_SHARE = 0.05    -- the others wait 5% of the step for it
local HIGH_LATE_SHARE = 0.20
local SPREAD = 0.5             -- no single module holds half of its extra compute
local DATA_EXPLAINS = 0.5      -- its extra wait for data is half its lateness or more
local WORK_EXPLAINS = 0.5      -- its extra compute is half its lateness or more

return {
  id = "unbalanced-data-per-rank",
  title = "One rank gets more data or work per step than the others",
  check = function(facts)
    local distributed = facts.distributed
    if distributed == nil or distributed.straggler == nil then return {} end
    local s = distributed.straggler
    if s.late_share == nil or s.late_share < MIN_LATE_SHARE then return {} end
    -- Late only now and then (the steps' spread leaves too little): the host's noise.
    if s.sure_late_share == nil or s.sure_late_share < MIN_LATE_SHARE then return {} end
    -- Not borne out by the steps timed without a profiler: the probe's own cost on that rank,
    -- not more work (straggler_rank.lua says more). An excess spread over every module, as this
    -- rule looks for, is also what a profiler that slows one rank's every op leaves.
    if s.holds_unprofiled == false then return {} end
    local data_slow = s.data_wait_excess_ms ~= nil and s.data_wait_excess_ms >= DATA_EXPLAINS * s.late_ms
    local module_excess = s.path_excess_ms or 0
    -- More work must be what makes it late: on two H200s a balanced job's rank 1, 2.4 ms late
    -- in the profiled steps (the probe's cost, not even across ranks), computed 0.5 ms more,
    -- spread over its modules as noise is.
    local spread = s.compute_excess_ms >= WORK_EXPLAINS * s.late_ms
      and s.compute_excess_ms > 0 and module_excess < SPREAD * s.compute_excess_ms
      and (s.op_excess_ms or 0) < SPREAD * s.compute_excess_ms
    if not data_slow and not spread then return {} end
    local message, evidence
    if data_slow then
      message = string.format("Rank %d waits longer for its batches than the other ranks, and "
        .. "they wait for it at every collective. Balance the input pipeline: as many DataLoader "
        .. "workers per rank, the same preprocessing cost per sample.", s.rank)
      evidence = string.format("rank %d waits %s per step more for data than the other ranks' "
        .. "median; it is %s per step late to the collectives (%s of its step)", s.rank,
        advisor.ms(s.data_wait_excess_ms), advisor.ms(s.late_ms), advisor.pct(s.late_share))
    else
      message = string.format("Rank %d computes longer than the other ranks everywhere, not in "
        .. "one module: it gets more work per step (longer sequences, larger inputs). Give every "
        .. "rank the same amount of work: a sampler balanced by tokens, or padding to one length.",
        s.rank)
      evidence = string.format("rank %d's compute exceeds the other ranks' median by %s per step, "
        .. "no module holds half of it (the most, %s, %s); it is %s per step late to the "
        .. "collectives (%s of its step)", s.rank, advisor.ms(s.compute_excess_ms),
        s.path or "none named", advisor.ms(module_excess), advisor.ms(s.late_ms),
        advisor.pct(s.late_share))
    end
    return {{
      severity = advisor.severity(s.late_share, HIGH_LATE_SHARE, MIN_LATE_SHARE),
      message = message,
      evidence = evidence,
      recipe = "",
      expected_gain_ms = s.late_ms,
    }}
  end,
}
