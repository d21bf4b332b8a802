-- An eager script runs every elementwise and normalisation op as kernels of its own, each
-- reading and writing whole tensors: the adds, GELUs, dropouts, layer norms and softmaxes of a
-- transformer, forward and backward. torch.compile fuses chains of them into a few kernels. Only a
-- script can be compiled (a TorchScript model cannot), on torch 2.0 or newer, and not twice.

-- From 3 % the advice is low: compiling fuses more than these ops (normalisations with their
-- neighbours, GEMM epilogues), so the autotester's measurement, not this share, says what it buys.
-- The seed's fp32 ViT-B/16 on an H200: these ops 5.0 % of the step (6.6 % before the probe's own
-- syncs left the user's ranges), torch.compile 1.037x by hand (docs/benchmarks.md).
local LOW_SHARE = 0.03
local MEDIUM_SHARE = 0.15
local HIGH_SHARE = 0.30
local EXPECTED_SAVING = 0.5  -- of the elementwise time: fusion removes most of its memory traffic

-- torch.compile's costlier forms, offered beside plain compile (low: what they add over it is the
-- autotester's to measure, after plain compile, and only where plain compile was not rejected).
local MODES = {
  {recipe = "torch-compile-max-autotune",
   message = "Or torch.compile(model, mode=\"max-autotune\"): matmul and convolution kernels "
     .. "autotuned, for a longer compile."},
  {recipe = "torch-compile-reduce-overhead",
   message = "Or torch.compile(model, mode=\"reduce-overhead\"): the compiled graphs replayed "
     .. "as CUDA graphs, fewer kernel launches for a launch-bound step."},
  {recipe = "torch-compile-regional",
   message = "Or compile each repeated block (the blocks of a ModuleList) alone: regional "
     .. "compilation compiles one block's graph for all, a shorter compile."},
}

-- Outermost names only: aten::layer_norm holds aten::native_layer_norm, which is not counted again.
local ELEMENTWISE = advisor.set{
  "aten::add", "aten::add_", "aten::mul", "aten::mul_", "aten::div", "aten::sub",
  "aten::gelu", "aten::silu", "aten::relu", "aten::tanh", "aten::sigmoid",
  "aten::dropout", "aten::layer_norm", "aten::softmax", "aten::group_norm",
  "AddBackward0", "MulBackward0", "DivBackward0", "SubBackward0",
  "GeluBackward0", "SiluBackward0", "ReluBackward0", "TanhBackward0", "SigmoidBackward0",
  "NativeDropoutBackward0", "NativeLayerNormBackward0", "SoftmaxBackward0",
  "NativeGroupNormBackward0",
}

local function compiled(ops)
  for _, op in ipairs(ops) do
    if op.name:find("CompiledFunction", 1, true) or op.name:find("Torch-Compiled Region", 1, true) then
      return true
    end
  end
  return false
end

return {
  id = "eager-elementwise",
  title = "Elementwise and normalisation ops run unfused",
  check = function(facts)
    local run = facts.run
    if run.mode ~= "script" or run.device ~= "cuda" then return {} end
    local major = tonumber((run.torch_version or ""):match("^(%d+)%."))
    if major == nil or major < 2 or compiled(facts.ops) then return {} end
    local model_ops = {}
    for _, op in ipairs(facts.ops) do
      if op.phase == "forward" or op.phase == "backward" then model_ops[#model_ops + 1] = op end
    end
    local ms, calls, matched = advisor.sum_ops(model_ops, ELEMENTWISE)
    local share = advisor.share(ms, facts.step.ms)
    if share < LOW_SHARE then return {} end
    local evidence = string.format("%s per step (%s of the step) in %d calls of %s",
      advisor.ms(ms), advisor.pct(share), calls, advisor.names(matched))
    local findings = {{
      severity = advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE),
      op = matched[1].name,
      message = "Elementwise and normalisation ops run one kernel each. Compile the model "
        .. "(model = torch.compile(model)) so that chains of them fuse into a few kernels.",
      evidence = evidence,
      recipe = "torch-compile",
      expected_gain_ms = ms * EXPECTED_SAVING,
    }}
    for _, mode in ipairs(MODES) do
      findings[#findings + 1] = {severity = "low", op = matched[1].name, message = mode.message,
                                 evidence = evidence, recipe = mode.recipe}
    end
    return findings
  end,
}
