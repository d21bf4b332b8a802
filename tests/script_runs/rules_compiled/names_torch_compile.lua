-- For the autotest's compile-in-blocks test: names the CPU copy of torch-compile
-- (recipes_compiled/) on every script run, whatever the built-in rules find.
return {
  id = "test-names-torch-compile",
  title = "Always try torch.compile (test rule)",
  check = function(facts)
    if facts.run.mode ~= "script" then return {} end
    return {{
      severity = "low",
      message = "Test rule: try torch.compile.",
      evidence = "always",
      recipe = "torch-compile-cpu",
    }}
  end,
}
