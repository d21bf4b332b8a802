-- A compiled function is guarded on the shapes it was compiled for; a batch whose size (or any
-- dimension) differs fails the guard and dynamo compiles the function again, in the step that
-- brought it. A training whose last batch is short, or whose sequences vary in length, pays a
-- compilation for each new shape until dynamo marks the dimension dynamic (or reaches its
-- recompile limit and runs the function eagerly). torch._dynamo.mark_dynamic(tensor, dim) on the
-- input, or torch.compile(..., dynamic=True), compiles one graph for every size; padding the
-- batches to a few fixed sizes (or drop_last=True) keeps the shapes the graph was compiled for.
-- facts.compile.recompiles (docs/facts.md): each recompiled function with the guard that failed,
-- from torch's compilation metrics; mean_compile_s is compile_s over the compilations.

-- Steps' worth of time the recompilations took: what the training lost to them, measured as torch
-- measured its compilations (their mean) against advisor's measured step.
local HIGH_STEPS = 100
local MEDIUM_STEPS = 10
local SHAPE_GUARD = {"size mismatch", "stride mismatch", "shape", ".size()"}

return {
  id = "compile-shape-recompiles",
  title = "A changing input shape recompiles the compiled model",
  check = function(facts)
    local compile = facts.compile
    if compile == nil or facts.step.ms == nil or facts.step.ms <= 0 then return {} end
    -- One finding per function: the code after its graph break (dynamo's resume frame, named
    -- as the function) recompiles on the same shape.
    local functions, order = {}, {}
    for _, recompile in ipairs(compile.recompiles) do
      if advisor.has_fragment(recompile.guard, SHAPE_GUARD) then
        local key = recompile["function"] .. "@" .. recompile.file
        local seen = functions[key]
        if seen == nil then
          functions[key] = {["function"] = recompile["function"], file = recompile.file,
                            line = recompile.line, guard = recompile.guard,
                            count = recompile.count}
          order[#order + 1] = key
        else
          seen.count = seen.count + recompile.count
          seen.line = math.min(seen.line, recompile.line)
        end
      end
    end
    local findings = {}
    for _, key in ipairs(order) do
      local recompile = functions[key]
      local seconds = recompile.count * (compile.mean_compile_s or 0)
      local steps = seconds * 1000 / facts.step.ms
      findings[#findings + 1] = {
        severity = advisor.severity(steps, HIGH_STEPS, MEDIUM_STEPS),
        message = string.format("torch.compile compiled %s again because an input's shape "
          .. "changed. Mark the changing dimension dynamic (torch._dynamo.mark_dynamic(x, 0) "
          .. "on the batch before the call, or torch.compile(model, dynamic=True)), or pad the "
          .. "batches to fixed sizes (drop_last=True for a short last batch).",
          recompile["function"]),
        evidence = string.format("%d recompilation(s) of %s (%s:%d) on the guard \"%s\"; "
          .. "torch's compilations took %.2f s each on average: about %.2f s, %.0f steps of "
          .. "%s", recompile.count, recompile["function"],
          recompile.file:match("[^/]+$") or recompile.file, recompile.line, recompile.guard,
          compile.mean_compile_s or 0, seconds, steps, advisor.ms(facts.step.ms)),
        source = advisor.compile_source(recompile),
      }
    end
    return findings
  end,
}
