-- For the autotest's compile cache test: names torch.compile with a knob that needs a process
-- (recipes_compiled/torch-compile-foreach-cpu.json) on every script run, so that it runs in
-- rounds of processes, whatever the built-in rules find.
return {
  id = "test-names-torch-compile-foreach",
  title = "Always try torch.compile with the foreach optimizer (test rule)",
  check = function(facts)
    if facts.run.mode ~= "script" then return {} end
    return {{
      severity = "low",
      message = "Test rule: try torch.compile with the foreach optimizer.",
      evidence = "always",
      recipe = "torch-compile-foreach-cpu",
    }}
  end,
}
