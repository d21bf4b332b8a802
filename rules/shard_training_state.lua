-- Data-parallel training keeps a whole copy of the parameters, gradients and optimizer state on
-- every GPU. Where those dominate the memory (or memory is tight and they are a good part of
-- it), sharding them over the ranks frees memory for a larger batch or model: stage 1 shards
-- the optimizer state (ZeroRedundancyOptimizer), stage 2 the gradients too (FSDP's
-- SHARD_GRAD_OP), stage 3 the parameters as well (FSDP's FULL_SHARD, fully_shard). The bytes
-- each stage saves per GPU are the measured sizes times (N - 1) / N. Under FSDP with FULL_SHARD
-- and memory to spare, SHARD_GRAD_OP keeps whole parameters after the forward and skips
-- gathering them again for the backward: one all-gather less per step for the parameters' bytes.

local DOMINATES = 0.5          -- parameters, gradients and optimizer state, of the peak allocated
local TIGHT = 0.8              -- peak reserved, of the device
local PART_WHEN_TIGHT = 0.2    -- ... where they need only be this share of the peak
local ROOM = 0.5               -- FSDP: after SHARD_GRAD_OP's extra bytes, still below this share

local function mb(value) return string.format("%.0f MiB", value) end

return {
  id = "shard-training-state",
  title = "Parameters, gradients and optimizer state fill each GPU's memory",
  check = function(facts)
    local s, memory, distributed = facts.training_state, facts.memory, facts.distributed
    if s == nil or memory == nil or distributed == nil or distributed.world_size < 2 then
      return {}
    end
    local n = distributed.world_size
    local keep = (n - 1) / n
    local states = s.parameter_mb + s.gradient_mb + s.optimizer_state_mb
    local share = advisor.share(states, memory.peak_allocated_mb)
    local evidence = string.format("per GPU: parameters %s, gradients %s, optimizer state %s "
      .. "(%s of the %s peak allocated, %s reserved of %s), %d ranks", mb(s.parameter_mb),
      mb(s.gradient_mb), mb(s.optimizer_state_mb), advisor.pct(share),
      mb(memory.peak_allocated_mb), mb(memory.peak_reserved_mb), mb(memory.device_total_mb), n)

    if s.wrapper == "FullyShardedDataParallel" then
      if s.sharding_strategy ~= "FULL_SHARD" then return {} end
      -- Measured sizes are this rank's shards: whole parameters need N - 1 more of them.
      local extra = s.parameter_mb * (n - 1)
      if advisor.share(memory.peak_reserved_mb + extra, memory.device_total_mb) >= ROOM then
        return {}
      end
      return {{
        severity = "low",
        message = string.format("FSDP shards everything (FULL_SHARD) with memory to spare. "
          .. "ShardingStrategy.SHARD_GRAD_OP keeps whole parameters after the forward, about %s "
          .. "more per GPU, and saves gathering them again for the backward.", mb(extra)),
        evidence = evidence,
        recipe = "fsdp-shard-grad-op",
      }}
    end

    local tight = advisor.share(memory.peak_reserved_mb, memory.device_total_mb) >= TIGHT
    if share < DOMINATES and not (tight and share >= PART_WHEN_TIGHT) then return {} end
    local stage1 = s.optimizer_state_mb * keep
    local stage2 = stage1 + s.gradient_mb * keep
    local stage3 = stage2 + s.parameter_mb * keep
    return {{
      severity = tight and "high" or "medium",
      message = string.format("Every GPU holds a whole copy of the parameters, gradients and "
        .. "optimizer state. Sharded over the %d ranks they would take less per GPU: stage 1 "
        .. "(optimizer state: torch.distributed.optim.ZeroRedundancyOptimizer) saves %s, stage 2 "
        .. "(and gradients: FSDP with ShardingStrategy.SHARD_GRAD_OP) %s, stage 3 (and "
        .. "parameters: FSDP FULL_SHARD or fully_shard) %s, at the cost of gathering what is "
        .. "sharded when it is needed.", n, mb(stage1), mb(stage2), mb(stage3)),
      evidence = evidence,
      recipe = "",
    }}
  end,
}
