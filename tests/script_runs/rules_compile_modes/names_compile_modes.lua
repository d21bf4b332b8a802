-- For the autotest's compile modes test: names the CPU copy of torch-compile-regional
-- (recipes_compiled/) and the shipped max-autotune and reduce-overhead recipes, which apply to
-- CUDA only, on every script run, whatever the built-in rules find. One finding each, merged into
-- one by the report as a rule's findings on one module are.
local RECIPES = {"torch-compile-regional-cpu", "torch-compile-max-autotune",
                 "torch-compile-reduce-overhead"}

return {
  id = "test-names-compile-modes",
  title = "Always try torch.compile's modes (test rule)",
  check = function(facts)
    if facts.run.mode ~= "script" then return {} end
    local findings = {}
    for _, recipe in ipairs(RECIPES) do
      findings[#findings + 1] = {severity = "low", message = "Test rule: try " .. recipe .. ".",
                                 evidence = "always", recipe = recipe}
    end
    return findings
  end,
}
