-- Under mode="reduce-overhead" inductor captures a compiled function's CUDA graph once and replays
-- it every step. Where what the graph was captured with no longer holds (an input tensor at
-- another address, a shape it has not seen), it captures it again: a device synchronisation and a
-- recording instead of a replay, which made a training step an order of magnitude slower
-- (pytorch issue 171672: 27 to 2 samples/s). Keeping the inputs' storage static (the same tensors
-- refilled, not new ones), marking a changing dimension dynamic or padding it to fixed sizes keeps
-- one graph; mode="max-autotune-no-cudagraphs" keeps the compiler's fusions without CUDA graphs.
-- facts.compile.cuda_graphs.functions (docs/facts.md): script mode, each function's captures, the
-- later steps it was captured again in (advisor's windows left out) and torch's reason.

-- A function captured again in this many later steps is re-captured in steady state, not once
-- for an evaluation pass or a last short batch; in half the steps since its first capture or more,
-- the recording is what the steps do: high.
local MIN_LATER_STEPS = 3

return {
  id = "compile-cuda-graph-rerecorded",
  title = "torch.compile captures a CUDA graph again in later steps",
  check = function(facts)
    local compile = facts.compile
    if compile == nil or compile.cuda_graphs == nil then return {} end
    local graphs = compile.cuda_graphs
    local findings = {}
    for _, graph in ipairs(graphs.functions) do
      if graph.later_steps >= MIN_LATER_STEPS then
        local since = math.max(graphs.step - graph.first_step, graph.later_steps)
        local reason = graph.rerecord_reason ~= ""
          and string.format("; torch re-recorded it %d times, last because: %s",
            graph.rerecordings, graph.rerecord_reason)
          or ""
        findings[#findings + 1] = {
          severity = graph.later_steps * 2 >= since and "high" or "medium",
          message = string.format("torch.compile captured the CUDA graph of %s (%s) again in %d "
            .. "of the %d steps after its first capture: each capture waits for the device and "
            .. "records the graph instead of replaying it. Keep its input tensors' storage "
            .. "static (copy each batch into the same tensors rather than passing new ones), "
            .. "mark a changing dimension dynamic (torch._dynamo.mark_dynamic) or pad it to "
            .. "fixed sizes, or compile with mode=\"max-autotune-no-cudagraphs\" to keep the "
            .. "fusions without CUDA graphs.", graph["function"], graph.mode, graph.later_steps,
            since),
          evidence = string.format("torch's cudagraphs log: %s (%s) captured %d times, first in "
            .. "step %d, again in %d later steps by step %d%s", graph["function"], graph.mode,
            graph.recordings, graph.first_step, graph.later_steps, graphs.step, reason),
        }
      end
    end
    return findings
  end,
}
