-- Collectives that run while nothing computes stretch the step: DistributedDataParallel starts
-- reducing a bucket of gradients as soon as backward has produced it, so that communication
-- overlaps the rest of backward; what is left exposed is the last buckets, collectives issued
-- outside backward, and time spent waiting for a late rank. facts.ranks (advisor analyze on rank
-- traces) has, per rank, the collective time no compute overlaps.

local MIN_SHARE = 0.10         -- a tenth of the step with only communication running
local HIGH_SHARE = 0.30
local MAX_RANKS = 2            -- the most exposed ranks; the others read alike
-- DistributedDataParallel's knobs, which the autotest measures in every rank of the job (a
-- script that builds no DDP has each skipped with that reason): bucket sizes either way of the
-- default 25 MiB (the benchmark keeps the faster), gradients as views into the buckets (no copy
-- before and after the all-reduce), and a static graph (buckets re-ordered to the order
-- backward produces gradients in).
local DDP_RECIPES = {"ddp-bucket-10mb", "ddp-bucket-100mb", "ddp-gradient-as-bucket-view",
                     "ddp-static-graph"}

return {
  id = "exposed-communication",
  title = "Communication is not hidden behind compute",
  check = function(facts)
    if facts.ranks == nil then return {} end
    local straggler = facts.distributed and facts.distributed.straggler
    -- A straggler the steps timed without a profiler do not bear out (holds_unprofiled false,
    -- straggler_rank.lua) was slowed by the probe: the other ranks' wait for it in the profiled
    -- steps is the measurement's, not the job's.
    local probe_made = straggler ~= nil and straggler.holds_unprofiled == false
    local exposed = {}
    for _, rank in ipairs(facts.ranks) do
      if rank.exposed_comm_share ~= nil and rank.exposed_comm_share >= MIN_SHARE
          and not (probe_made and rank.rank ~= straggler.rank) then
        exposed[#exposed + 1] = rank
      end
    end
    table.sort(exposed, function(a, b) return a.exposed_comm_ms > b.exposed_comm_ms end)
    local findings = {}
    for i = 1, math.min(#exposed, MAX_RANKS) do
      local rank = exposed[i]
      local waiting = straggler ~= nil and straggler.rank ~= rank.rank
      local message
      if waiting then
        message = string.format("Rank %d spends much of its step in collectives with nothing to "
          .. "compute, most of it waiting for the straggler rank %d (see straggler-rank).",
          rank.rank, straggler.rank)
      else
        message = string.format("Rank %d spends much of its step in collectives with nothing to "
          .. "compute. Overlap them with backward (DistributedDataParallel's bucket_cap_mb, "
          .. "gradient_as_bucket_view, static_graph), or send less: gradients in bf16, fewer "
          .. "parameters synchronised per step.", rank.rank)
      end
      local finding = {
        severity = advisor.severity(rank.exposed_comm_share, HIGH_SHARE, MIN_SHARE),
        message = message,
        evidence = string.format("rank %d: %s per step in collectives, %s of it with no compute "
          .. "running (%s of a %s step)", rank.rank, advisor.ms(rank.comm_ms),
          advisor.ms(rank.exposed_comm_ms), advisor.pct(rank.exposed_comm_share),
          advisor.ms(rank.step_ms)),
        recipe = "",
        expected_gain_ms = waiting and nil or rank.exposed_comm_ms,
      }
      -- Waiting for a straggler is no overlap problem: the knobs would not shorten it. Otherwise
      -- the most exposed rank's finding is one per knob (the knobs apply to every rank at once),
      -- merged into one that names them all (same rule, same path).
      local recipes = (waiting or i > 1) and {""} or DDP_RECIPES
      for _, recipe in ipairs(recipes) do
        local copy = {}
        for key, value in pairs(finding) do copy[key] = value end
        copy.recipe = recipe
        findings[#findings + 1] = copy
      end
    end
    return findings
  end,
}
