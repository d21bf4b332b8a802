-- For the out-of-memory autotest's test: names deterministic-off after any run that ran out of
-- memory, a fix that cannot make it fit (it changes no byte the step keeps) and that applies on a
-- CPU, where the built-in rules' other recipes (bf16-autocast) do not.
return {
  id = "test-oom-names-deterministic-off",
  title = "Try deterministic algorithms off after running out of memory (test rule)",
  check = function(facts)
    if facts.out_of_memory == nil then return {} end
    return {{
      severity = "low",
      message = "Test rule: try deterministic algorithms off.",
      evidence = "the run ran out of memory",
      recipe = "deterministic-off",
    }}
  end,
}
