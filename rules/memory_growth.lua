-- Allocated memory that climbs at every step's end is memory kept across steps: a list that
-- collects each step's loss or outputs without `.item()` or `.detach()` (each holds its tensor,
-- and the graph behind it where the backward did not run), a cache keyed by step, a tensor
-- appended to a module attribute. The run ends out of memory at a step count no profile shows.
-- The fact comes from the bisection's baseline window (facts.md: memory.growth_mb_per_step).

local FLOOR_MB = 0.25   -- per step: below it, a few small tensors (a scalar a step) are not worth a finding
local HIGH_MB = 64      -- per step: gone in a few thousand steps on any device

return {
  id = "memory-growth",
  title = "Allocated memory grows from step to step",
  check = function(facts)
    local memory = facts.memory
    if memory == nil or memory.growth_mb_per_step == nil then return {} end
    local growth = memory.growth_mb_per_step
    if growth < FLOOR_MB then return {} end
    local where = "something keeps tensors across steps"
    local source = memory.growth_source
    if source ~= nil then
      where = string.format("%s:%d keeps them (%s)", source.file, source.line, source.text)
    end
    return {{
      severity = growth >= HIGH_MB and "high" or "medium",
      message = "Memory allocated in each step is still held at the next: " .. where
        .. ". Keep numbers, not tensors (loss.item(), "
        .. "output.detach().cpu()), and clear per-step caches.",
      evidence = string.format("%.2f MB more held at the end of every step of the window, "
        .. "%d steps (peak %.0f MB)", growth, facts.run.window_steps or 0,
        memory.peak_allocated_mb),
      recipe = "",
    }}
  end,
}
