-- A run that ran out of memory with activations kept for backward: with activation checkpointing
-- an instance keeps only its inputs for backward and recomputes the rest there, at the cost of one
-- more forward of it.
--
-- In a forward, the instance that was running: what it keeps was not measured in the run that
-- failed, so the saving is not predicted. In a backward, the instances whose backward had not run
-- yet still held what they kept (facts.out_of_memory.kept_for_backward, read from the autograd
-- graph): checkpointing them frees it, less what the recomputation holds, one instance's
-- activations at a time (the largest's). The instance whose backward was running is left out: its
-- recompute would hold its activations again. Where the graph told only an instance around several
-- units (a GPT-2's `transformer` around its blocks), the units inside it stay candidates. The instances are those of the level where the
-- kept bytes spread over several (a model's blocks, not the model), the fewest holding the most
-- that cover the shortfall where it was measured. --autotest measures the fix in a run that fits
-- (activation-checkpointing: the recompute's cost, and on CUDA the peak beside it).

local DOMINANT = 0.9  -- a child holding this share of its parent's bytes stands for the parent

local function is_within(path, ancestor)
  return ancestor == "" or path == ancestor or path:sub(1, #ancestor + 1) == ancestor .. "."
end

-- The child of `parent` on the way to `path` (its next path component).
local function child_towards(parent, path)
  local rest = parent == "" and path or path:sub(#parent + 2)
  local component = rest:match("^[^.]+")
  return parent == "" and component or parent .. "." .. component
end

-- The instances of the level where the kept bytes spread: from the root down, a child holding
-- DOMINANT of its parent's bytes, the parent's own among them, stands for it (a GPT-2's
-- `transformer` keeps a little itself around the blocks it calls: checkpointing `transformer.h`,
-- a ModuleList never called, would wrap nothing). {path, mb} by path.
local function units_of(kept)
  local parent = ""
  while true do
    local children, total = {}, 0
    for _, held in ipairs(kept) do
      if held.path ~= "" and is_within(held.path, parent) then
        total = total + held.mb  -- the parent's own too
        if held.path ~= parent then
          local child = child_towards(parent, held.path)
          children[child] = (children[child] or 0) + held.mb
        end
      end
    end
    local top, top_mb = nil, 0
    for child, mb in pairs(children) do
      if mb > top_mb or (mb == top_mb and child < top) then top, top_mb = child, mb end
    end
    if top == nil or top_mb < DOMINANT * total then
      local units = {}
      for child, mb in pairs(children) do units[#units + 1] = {path = child, mb = mb} end
      return units
    end
    parent = top
  end
end

local function forward_finding(oom)
  return {
    severity = "medium",
    path = oom.path,
    source = oom.source,  -- the user's line at the raise
    recipe = "activation-checkpointing",
    message = string.format("Wrap %s's forward in torch.utils.checkpoint.checkpoint(..., "
      .. "use_reentrant=False): it keeps only its inputs for backward and recomputes its "
      .. "activations there, one more forward of it per step.", oom.path),
    evidence = string.format("the allocation failed in the forward of %s%s, asking for %s; "
      .. "the activations it keeps were not measured in this run", oom.path,
      oom.source and string.format(" (%s:%d)", oom.source.file, oom.source.line) or "",
      oom.requested_mb and string.format("%.0f MB", oom.requested_mb) or "an unknown size"),
  }
end

-- One finding per instance to checkpoint (the autotest wraps every instance its findings name);
-- the first, the instance holding the most, carries the saving of them all.
local function backward_findings(oom)
  local units = {}
  for _, unit in ipairs(units_of(oom.kept_for_backward)) do
    -- The unit whose backward ran, or one around it, is left out. Units inside a coarser running
    -- instance (the graph named only the model around them) stay: one of them was running, and
    -- the saving already takes off the largest's recompute.
    if not is_within(oom.path, unit.path) then
      units[#units + 1] = unit
    end
  end
  table.sort(units, function(a, b) return a.mb > b.mb or (a.mb == b.mb and a.path < b.path) end)
  local chosen, freed = {}, 0
  for _, unit in ipairs(units) do
    chosen[#chosen + 1] = unit
    freed = freed + unit.mb
    if oom.shortfall_mb ~= nil and #chosen >= 2 and freed - units[1].mb >= oom.shortfall_mb then
      break
    end
  end
  local saving = freed - (chosen[1] and chosen[1].mb or 0)
  if #chosen < 2 or saving <= 0 then return {} end
  local severity, fit = advisor.oom_fit(oom, saving)
  local names = {}
  for i, unit in ipairs(chosen) do names[i] = unit.path end
  local listed = table.concat(names, ", ")
  local findings = {}
  for i, unit in ipairs(chosen) do
    findings[i] = {
      severity = severity,
      path = unit.path,
      recipe = "activation-checkpointing",
      message = string.format("Wrap the forward of %s in torch.utils.checkpoint.checkpoint(..., "
        .. "use_reentrant=False): each keeps only its inputs for backward and recomputes its "
        .. "activations when its backward runs, one more forward of it per step.", listed),
      evidence = string.format("%s kept %.1f MB for backward when the backward%s ran out of "
        .. "memory; %s", unit.path, unit.mb,
        oom.path ~= "" and " of " .. oom.path or "",
        i == 1 and string.format("predicted saving %.1f MB for the %d instances: the %.1f MB "
          .. "they kept less the %.1f MB the largest holds again while it is recomputed, %s",
          saving, #chosen, freed, chosen[1].mb, fit)
        or string.format("its saving is counted in %s's finding", chosen[1].path)),
      expected_saving_mb = i == 1 and saving or nil,
    }
  end
  return findings
end

return {
  id = "oom-activation-checkpointing",
  title = "Out of memory: checkpoint the instances holding activations",
  check = function(facts)
    local oom = facts.out_of_memory
    if oom == nil then return {} end
    if oom.phase == "forward" and oom.path ~= "" then return {forward_finding(oom)} end
    if oom.phase == "backward" and oom.kept_for_backward ~= nil then
      return backward_findings(oom)
    end
    return {}
  end,
}
