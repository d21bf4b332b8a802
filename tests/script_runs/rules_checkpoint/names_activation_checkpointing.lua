-- For the activation-checkpointing recipe's test: names it on the first layer of the script's
-- model (deterministic_train.py's Sequential), whatever the built-in rules find: the recipe
-- checkpoints the instances its findings name.
return {
  id = "test-names-activation-checkpointing",
  title = "Always try checkpointing the first layer (test rule)",
  check = function(facts)
    if facts.run.mode ~= "script" then return {} end
    return {{
      severity = "low",
      path = "0",
      message = "Test rule: checkpoint the first layer.",
      evidence = "always",
      recipe = "activation-checkpointing",
    }}
  end,
}
