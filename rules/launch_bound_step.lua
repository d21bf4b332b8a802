-- A step of thousands of tiny kernels is bound by the host launching them, not by the GPU
-- running them: the GPU idles between launches. A CUDA graph replays the whole step with one
-- launch; torch.compile fuses kernels (mode="reduce-overhead" also uses CUDA graphs).

local MIN_KERNELS = 1000      -- per step; fewer launches cost too little host time to matter
local MIN_TINY_SHARE = 0.5    -- most kernels shorter than the GPU probe's "tiny" threshold
local MAX_BUSY = 0.70         -- the GPU waits for launches for at least 30% of the step
local HIGH_BUSY = 0.40        -- busy under 40%: the launch overhead dominates
local EXPECTED_RECOVERED = 0.6  -- of the idle time; graphs remove launch gaps, not all idling

return {
  id = "launch-bound-step",
  title = "The step is bound by launching many tiny kernels",
  check = function(facts)
    local gpu = facts.gpu
    -- A graphed workload's window facts describe its eager step: the launches are already gone.
    if gpu == nil or facts.run.cuda_graphs then return {} end
    if gpu.kernels_per_step < MIN_KERNELS or gpu.tiny_kernel_share < MIN_TINY_SHARE
        or gpu.busy_fraction >= MAX_BUSY then
      return {}
    end
    return {{
      severity = gpu.busy_fraction < HIGH_BUSY and "high" or "medium",
      message = "The step launches many tiny kernels and the GPU idles between them. Capture "
        .. "the step in a CUDA graph, or compile it (torch.compile, mode=\"reduce-overhead\").",
      evidence = string.format("%.0f kernels per step, %s of them tiny (median %.0f us); GPU "
        .. "busy %s of a %s step", gpu.kernels_per_step, advisor.pct(gpu.tiny_kernel_share),
        gpu.median_kernel_us, advisor.pct(gpu.busy_fraction), advisor.ms(facts.step.ms)),
      recipe = "cuda-graphs",
      expected_gain_ms = gpu.idle_ms and gpu.idle_ms * EXPECTED_RECOVERED,
    }}
  end,
}
