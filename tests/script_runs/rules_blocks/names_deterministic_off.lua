-- For the autotest's blocks test: names deterministic-off on every script run, so that the test
-- exercises the knob switched between the steps of one run whatever the built-in rules find.
return {
  id = "test-names-deterministic-off",
  title = "Always try deterministic algorithms off (test rule)",
  check = function(facts)
    if facts.run.mode ~= "script" then return {} end
    return {{
      severity = "low",
      message = "Test rule: try deterministic algorithms off.",
      evidence = "always",
      recipe = "deterministic-off",
    }}
  end,
}
