-- For the autotest's numerics check inside the running script: names the three test recipes of
-- recipes_checked/ on every script run, whatever the built-in rules find.
return {
  id = "test-names-checked-knobs",
  title = "Always try the checked test knobs (test rule)",
  check = function(facts)
    if facts.run.mode ~= "script" then return {} end
    return {
      {severity = "low", message = "Test rule: try deterministic algorithms off.",
       evidence = "always", recipe = "deterministic-off-checked"},
      {severity = "low", message = "Test rule: try three threads.",
       evidence = "always", recipe = "three-threads"},
      {severity = "low", message = "Test rule: try cuDNN's benchmark mode.",
       evidence = "always", recipe = "cudnn-benchmark-checked"},
    }
  end,
}
