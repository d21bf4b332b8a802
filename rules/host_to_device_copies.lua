-- A host-to-device copy inside a module, every step, means the model rebuilds a tensor on the
-- host and ships it over (torch.tensor(list).cuda(), torch.arange(n).to(device), a buffer kept
-- on the CPU). Creating it on the device once (register_buffer, or a factory call with
-- device=...) removes both the copy and the host work. Copies outside the instrumented modules
-- (path "") are mostly the input batch, which the pin-memory and data-loader rules cover.

local MEDIUM_SHARE = 0.02     -- 2% of the step spent copying is worth a one-line fix
local HIGH_SHARE = 0.10
local MAX_SITES = 3

return {
  id = "per-step-host-to-device-copy",
  title = "Tensors rebuilt on the host and copied every step",
  check = function(facts)
    if facts.copies == nil then return {} end
    local sites = {}
    for _, copy in ipairs(facts.copies) do
      if copy.path ~= "" and copy.count_per_step > 0 then sites[#sites + 1] = copy end
    end
    table.sort(sites, function(a, b) return a.ms > b.ms end)

    local findings = {}
    for i = 1, math.min(#sites, MAX_SITES) do
      local copy = sites[i]
      local share = advisor.share(copy.ms, facts.step.ms)
      findings[#findings + 1] = {
        severity = advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE),
        path = copy.path,
        op = copy.op,
        message = copy.op .. " in " .. copy.path .. " copies a host tensor to the GPU every "
          .. "step. Create it on the device once (register_buffer, or torch.* with device=) "
          .. "instead of rebuilding it on the host.",
        evidence = string.format("%d host-to-device copies per step during %s, %.2f MB, %s "
          .. "(%s of the step)", copy.count_per_step, copy.phase, copy.mb_per_step,
          advisor.ms(copy.ms), advisor.pct(share)),
        recipe = "",
        expected_gain_ms = copy.ms,
      }
    end
    return findings
  end,
}
