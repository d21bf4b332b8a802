return {id = "slow", title = "Slow", check = function(facts)
  local a, b = string.rep("x", 1 << 20), string.rep("x", 1 << 20)
  while a == b do pcall(table.sort, {3, 2, 1}) end
end}
