-- In data-parallel training every rank waits at each collective for the last rank to arrive, so
-- one slow rank sets the step time of all of them. facts.distributed.straggler (advisor analyze
-- on a folder of rank traces, advisor bisect on a launcher's ranks) names the rank that arrived last at most collectives, how late it
-- was, and the module and op whose cost on it exceeds the other ranks' most. When that module
-- explains most of the extra compute, the fix is there: uneven work in one module (a branch
-- taken on one rank, a slower kernel, a host sync); the unbalanced-data rule covers the case
-- where everything on the rank is slower. Its lateness is weighed against its spread over the
-- steps (sure_late_share, the lower end of its 95 % interval): a rank late only now and then is
-- the host's noise, not a straggler. Where advisor also timed steps without a profiler (bisect),
-- its excess must show there too (holds_unprofiled), or it is taken for the profiler's own effect.

local MIN_LATE_SHARE = 0.05    -- the others wait 5% of the step for it
local HIGH_LATE_SHARE = 0.20
local MODULE_EXPLAINS = 0.5    -- the module holds half of the rank's extra compute or more

-- Whether the steps timed without a profiler bore the straggler out, for the evidence.
local function unprofiled_text(s)
  if s.holds_unprofiled == nil then
    return "; not checked outside the profiled steps (none were timed without a profiler)"
  end
  return string.format("; outside the profiled steps too, its data wait and forward %s longer "
    .. "than the other ranks' (%s in the profiled steps)", advisor.ms(s.unprofiled_excess_ms),
    advisor.ms(s.pre_backward_excess_ms))
end

return {
  id = "straggler-rank",
  title = "One rank is late to the collectives and holds every rank back",
  check = function(facts)
    local distributed = facts.distributed
    if distributed == nil or distributed.straggler == nil then return {} end
    local s = distributed.straggler
    if s.late_share == nil or s.late_share < MIN_LATE_SHARE then return {} end
    -- Lateness that comes and goes from step to step is the host's noise (ranks on a busy
    -- machine take turns being late): what the steps' spread leaves of it must count too.
    if s.sure_late_share == nil or s.sure_late_share < MIN_LATE_SHARE then return {} end
    -- The probe's own cost can fall on one rank more than the others in its profiled windows,
    -- which then looks late there; a straggler the steps timed without a profiler do not show
    -- (holds_unprofiled false: engine/multi_rank/unprofiled_check.h weighs its data wait and
    -- forward in both) is taken for that, and the report's data quality says so. A folder of
    -- traces has no such steps (holds_unprofiled absent): there it cannot be checked.
    if s.holds_unprofiled == false then return {} end
    -- A module or op explains the lateness when it holds most of the rank's extra compute, or,
    -- where its compute over the whole step reads no more than the others' (two ranks sharing
    -- two cores; on two H200s a rank slowed on its GPU alone read 1.0 ms less while its module
    -- held 43 ms more), most of the lateness itself. A module whose forward lasts longer on
    -- the host's clock with no more work in its ops (path_by_wall_time) is late on its host. A
    -- rank late for another reason (its data wait) has neither.
    local explained_ms = s.compute_excess_ms > 0 and s.compute_excess_ms or s.late_ms
    -- What explains the lateness must itself be a measurable part of the step, as the lateness
    -- must: a tenth of a millisecond that holds half of a tenth more is the host's noise.
    local step_ms = s.late_ms / s.late_share
    local function explains(excess_ms)
      return excess_ms >= MODULE_EXPLAINS * explained_ms
        and excess_ms >= MIN_LATE_SHARE * step_ms
    end
    local explained = s.path ~= nil and explains(s.path_excess_ms)
    -- The op stands in for the module only where the run names no modules: with modules named,
    -- an op that holds the excess without a module that does is spread over several (noise on a
    -- busy host, or more work everywhere: unbalanced-data-per-rank).
    local op_explains = s.path == nil and next(facts.modules) == nil and s.op ~= nil
      and explains(s.op_excess_ms)
    if not explained and not op_explains then return {} end
    local where = explained and (" in " .. s.path) or ""
    if explained and s.path_by_wall_time then
      where = where .. ", on its host: the module's forward lasts longer there with no more work "
        .. "in its ops (Python between the ops, a sleep, a wait for a synchronisation)"
    end
    local compute_text
    if s.compute_excess_ms > 0 then
      compute_text = string.format("its compute exceeds the other ranks' median by %s per step%s",
        advisor.ms(s.compute_excess_ms),
        explained and string.format(", %s of it in %s%s", advisor.ms(s.path_excess_ms), s.path,
          s.path_by_wall_time and " (its forward's time on the host's clock)" or "") or "")
    else
      compute_text = string.format("its compute over the step reads no more than the other "
        .. "ranks' (%s beyond their median), but %s costs it %s more per step",
        advisor.ms(s.compute_excess_ms), explained and s.path or s.op,
        advisor.ms(explained and s.path_excess_ms or s.op_excess_ms))
    end
    local op_text = s.op ~= nil
      and string.format("; the op furthest behind is %s (%s, +%s)", s.op, s.op_phase,
                        advisor.ms(s.op_excess_ms)) or ""
    return {{
      severity = advisor.severity(s.late_share, HIGH_LATE_SHARE, MIN_LATE_SHARE),
      path = explained and s.path or "",
      op = s.op or "",
      message = string.format("Rank %d reaches the collectives last and every other rank waits "
        .. "for it. Its extra time is%s: find why that work is larger or slower on rank %d "
        .. "(a branch taken only there, a slower device, a host synchronisation).", s.rank,
        where, s.rank),
      evidence = string.format("rank %d was last at %s of %d matched collectives, %s per step "
        .. "later than the earliest rank (%s of its step); %s%s", s.rank,
        advisor.pct(s.last_share), distributed.collectives_matched, advisor.ms(s.late_ms),
        advisor.pct(s.late_share), compute_text, op_text) .. unprofiled_text(s),
      recipe = "",
      expected_gain_ms = s.late_ms,
    }}
  end,
}
