-- mode="reduce-overhead" runs each compiled graph as a CUDA graph: its kernels launched by one call
-- instead of one by one from the CPU. Inductor skips a graph it cannot capture and runs it as
-- mode="default" would, with only a warning on stderr: the mode's gain is gone for that graph.
-- torch's reason names the fix: an input changed in place, a tensor on the CPU, dynamic shapes, an
-- op a CUDA graph cannot hold. TORCH_LOGS=perf_hints prints the line that caused it.
-- facts.compile.cuda_graphs.skipped (docs/facts.md): script mode, each reason torch's cudagraphs
-- log gave ("skipping cudagraphs due to ...") and how often.

-- Where nothing was captured at all, every graph lost the mode's gain: high. Where others were
-- captured, the skipped graphs' share of the step is not known: medium.
local FIXES = {
  {fragments = {"mutated inputs", "input storage mutation"},
   fix = "An input of the compiled function is changed in place (an in-place op on an argument "
     .. "or a buffer, such as a counter's .add_(1) in forward): compute a new tensor instead, or "
     .. "move the update out of the compiled function."},
  {fragments = {"cpu device"},
   fix = "A tensor on the CPU reaches the compiled graph (an input or a buffer left on the CPU, a "
     .. "torch.tensor(...) made in forward): move it to the GPU with the model, or pass a Python "
     .. "number."},
  {fragments = {"symbolic shapes", "dynamic shape"},
   fix = "The graph was compiled for dynamic shapes, which inductor does not capture: pad the "
     .. "inputs to a few fixed sizes and compile with dynamic=False, or let it capture one graph "
     .. "per size (torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = False)."},
  {fragments = {"incompatible op"},
   fix = "The graph holds an op a CUDA graph cannot (one whose output size depends on the data, "
     .. "such as nonzero or indexing with a boolean mask, or one that waits for the host): use a "
     .. "fixed-size form (torch.where, a masked op) or move it out of the compiled function."},
  {fragments = {"multiple devices"},
   fix = "The graph spans several devices: keep each compiled function on one GPU."},
  {fragments = {"re-recording limit", "re-recording threshold"},
   fix = "Its graph was captured again until torch's limit (compile-cuda-graph-rerecorded says "
     .. "why): keep its input tensors' storage the same from step to step."},
}

local function fix_for(reason)
  for _, entry in ipairs(FIXES) do
    if advisor.has_fragment(reason, entry.fragments) then return entry.fix end
  end
  return "Remove what the reason names from the compiled function."
end

return {
  id = "compile-cuda-graphs-skipped",
  title = "torch.compile runs graphs without CUDA graphs",
  check = function(facts)
    local compile = facts.compile
    if compile == nil or compile.cuda_graphs == nil then return {} end
    local graphs = compile.cuda_graphs
    local severity = graphs.recordings == 0 and "high" or "medium"
    local findings = {}
    for _, skip in ipairs(graphs.skipped) do
      findings[#findings + 1] = {
        severity = severity,
        message = string.format("torch.compile skipped CUDA graphs %d time(s) because of %s: "
          .. "the graphs it skipped launch their kernels one by one from the CPU, as without "
          .. "mode=\"reduce-overhead\". %s TORCH_LOGS=perf_hints prints the line that causes it.",
          skip.count, skip.reason, fix_for(skip.reason)),
        evidence = string.format("torch's cudagraphs log: \"skipping cudagraphs due to %s\" "
          .. "(%d times); %d captures of %d graphs by step %d", skip.reason, skip.count,
          graphs.recordings, #graphs.functions, graphs.step),
      }
    end
    return findings
  end,
}
