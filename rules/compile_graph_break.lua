-- A graph break splits a compiled model: dynamo ends its graph at the line, runs that line eagerly
-- (in Python, op by op) and starts another graph after it, every step. The fusions and the
-- launch savings that the compiled graph gave stop at the break, and a break at a tensor's
-- .item() (a Python number read from a tensor, or control flow on one) also waits for the device
-- on a GPU. Moving the line out of the compiled forward (to the loss, or after the step) keeps one
-- graph; for .item(), torch._dynamo.config.capture_scalar_outputs = True lets dynamo trace it.
-- facts.compile.graph_breaks (docs/facts.md): script mode, what torch's graph_breaks log said, each
-- with the user's file and line. What a break costs the step is not measured (the compiled region
-- is one leaf to advisor): the finding says so and claims no gain.

-- Graphs per compiled model: one is what compiling meant. Each break adds one and an eager stretch
-- between them; with several breaks the model runs more eagerly than compiled.
local MANY_BREAKS = 3

local function where(file, line)
  return string.format("%s:%d", file:match("[^/]+$") or file, line)
end

return {
  id = "compile-graph-break",
  title = "torch.compile breaks the model's graph at a line of the script",
  check = function(facts)
    local compile = facts.compile
    if compile == nil or #compile.graph_breaks == 0 then return {} end
    local severity = #compile.graph_breaks >= MANY_BREAKS and "high" or "medium"
    local findings = {}
    for _, graph_break in ipairs(compile.graph_breaks) do
      local item = graph_break.reason:find("item()", 1, true) ~= nil
      local fix = item
        and "Read the number outside the compiled forward (after the step, or every few steps), "
          .. "or let dynamo trace it with torch._dynamo.config.capture_scalar_outputs = True."
        or "Move the line out of the compiled forward, or rewrite it with tensor ops that dynamo "
          .. "traces (torch.where instead of an if on a tensor's value)."
      findings[#findings + 1] = {
        severity = severity,
        message = string.format("torch.compile breaks its graph at %s every step: dynamo runs "
          .. "that line eagerly and compiles the code before and after it as separate graphs. %s "
          .. "What the break costs the step was not measured.",
          where(graph_break.file, graph_break.line), fix),
        evidence = string.format("torch's graph_breaks log: %s at %s (met %d times while "
          .. "compiling); %d graphs compiled, %d graph breaks in all",
          graph_break.reason, where(graph_break.file, graph_break.line), graph_break.count,
          compile.graphs, #compile.graph_breaks),
        source = advisor.compile_source(graph_break),
      }
    end
    return findings
  end,
}
