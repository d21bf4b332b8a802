-- A host-device synchronisation inside the step (tensor.item(), .tolist(), .nonzero(),
-- bool(tensor), a blocking .cpu()) stops the host until the GPU has drained its queue: the GPU
-- then idles while the host launches the next kernels. Each site is reported where it happens
-- (the GPU probe leaves out the runner's own end-of-step synchronisation).

local MIN_WAIT_SHARE = 0.02   -- waits under 2% of the step are noise
local HIGH_WAIT_SHARE = 0.10
local MAX_SITES = 3           -- the costliest few; fixing them usually reveals the rest

return {
  id = "host-device-sync",
  title = "Host-device synchronisation inside the step",
  check = function(facts)
    if facts.syncs == nil then return {} end
    local sites = {}
    for _, site in ipairs(facts.syncs) do
      local share = advisor.share(site.wait_ms, facts.step.ms)
      if share >= MIN_WAIT_SHARE then
        sites[#sites + 1] = { site = site, share = share }
      end
    end
    table.sort(sites, function(a, b) return a.site.wait_ms > b.site.wait_ms end)

    local findings = {}
    for i = 1, math.min(#sites, MAX_SITES) do
      local site, share = sites[i].site, sites[i].share
      local where = site.path ~= "" and (" in " .. site.path) or ""
      findings[#findings + 1] = {
        severity = advisor.severity(share, HIGH_WAIT_SHARE, MIN_WAIT_SHARE),
        path = site.path,
        op = site.op,
        message = site.op .. where .. " makes the host wait for the GPU inside the step. Keep "
          .. "the value on the device (no .item(), .tolist(), .nonzero() or bool(tensor) in the "
          .. "step), or read it once after the step.",
        evidence = string.format("%s during %s: %d per step, %s waiting (%s of the step)",
          site.kind, site.phase, site.count_per_step, advisor.ms(site.wait_ms),
          advisor.pct(share)),
        recipe = "",
        expected_gain_ms = site.wait_ms,
      }
    end
    return findings
  end,
}
