local t = setmetatable({}, {__index = function() return "high" end})
return {id = "odd-findings", title = "Odd findings", check = function(facts)
  return {{severity = "high", message = "m\27[2J", evidence = "e", expected_gain_ms = -1},
          {severity = t.severity, message = 1, evidence = {}}, 5, "x",
          {severity = "low", message = string.rep("m", 3000), evidence = "e", recipe = "NOT-ok"}}
end}
