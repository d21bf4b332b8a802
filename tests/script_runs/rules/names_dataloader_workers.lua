-- For the autotest's end-to-end test: names the dataloader-workers recipe on every script run, so
-- that the test exercises the relaunch of the script with a knob whatever the machine's timings
-- make the built-in rules find.
return {
  id = "test-names-dataloader-workers",
  title = "Always try more DataLoader workers (test rule)",
  check = function(facts)
    if facts.run.mode ~= "script" then return {} end
    return {{
      severity = "low",
      message = "Test rule: try more DataLoader workers.",
      evidence = "always",
      recipe = "dataloader-workers",
    }}
  end,
}
