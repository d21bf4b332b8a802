-- dynamo compiles a function at most config.recompile_limit times (8 by default); past it, the
-- function runs eagerly for the rest of the training, as if it had never been compiled, with only
-- a warning on stderr. The recompilations before it say why (compile-shape-recompiles names a
-- changing shape); fixing their cause gives the compiled function back.
-- facts.compile.recompile_limit_hits (docs/facts.md): script mode, each function torch's warning
-- named.

return {
  id = "compile-recompile-limit",
  title = "A compiled function hit the recompile limit and runs eagerly",
  check = function(facts)
    local compile = facts.compile
    if compile == nil then return {} end
    local findings = {}
    for _, hit in ipairs(compile.recompile_limit_hits) do
      local guards = {}
      for _, recompile in ipairs(compile.recompiles) do
        if recompile["function"] == hit["function"] and recompile.file == hit.file then
          guards[#guards + 1] = recompile.guard
        end
      end
      findings[#findings + 1] = {
        severity = "high",
        message = string.format("torch.compile gave up on %s after %d recompilations: it runs "
          .. "eagerly from then on, uncompiled. Remove what recompiles it (its failed guards are "
          .. "in the evidence; a changing shape: torch._dynamo.mark_dynamic or dynamic=True).",
          hit["function"], hit.limit),
        evidence = string.format("torch's warning: %s (%s:%d) hit config.recompile_limit (%d)%s",
          hit["function"], hit.file:match("[^/]+$") or hit.file, hit.line, hit.limit,
          #guards > 0 and ("; failed guards: " .. table.concat(guards, "; ")) or ""),
        source = advisor.compile_source(hit),
      }
    end
    return findings
  end,
}
