-- With torch.backends.cudnn.benchmark = False, cuDNN picks convolution algorithms by heuristics;
-- with it on, the first call for each input shape times the candidates and keeps the fastest,
-- often 10-30% faster for convolution-heavy steps with fixed shapes. facts.run.cudnn_benchmark
-- is nil when the runner did not report the setting; the rule then assumes PyTorch's default
-- (off) and says so.

local CONV_OPS = advisor.set{ "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
                              "aten::convolution_backward" }
local MIN_SHARE = 0.20         -- convolutions take a fifth of the step
local HIGH_SHARE = 0.50
local EXPECTED_SAVING = 0.15   -- of convolution time

return {
  id = "cudnn-benchmark-off",
  title = "cuDNN benchmark mode is off for a convolution-heavy step",
  check = function(facts)
    if facts.run.device ~= "cuda" or facts.run.cudnn_benchmark == true then return {} end
    local ms, _, matched = advisor.sum_ops(facts.ops, CONV_OPS)
    local share = advisor.share(ms, facts.step.ms)
    if share < MIN_SHARE then return {} end
    local setting = facts.run.cudnn_benchmark == false and "off" or "not reported (default: off)"
    return {{
      severity = share >= HIGH_SHARE and "high" or "medium",
      op = matched[1].name,
      message = "Convolutions dominate the step and cuDNN benchmark mode is not on. Set "
        .. "torch.backends.cudnn.benchmark = True so cuDNN times its algorithms once per shape.",
      evidence = string.format("convolutions (%s) take %s per step, %s of the step; "
        .. "cudnn.benchmark %s", advisor.names(matched), advisor.ms(ms), advisor.pct(share),
        setting),
      recipe = "cudnn-benchmark",
      expected_gain_ms = ms * EXPECTED_SAVING,
    }}
  end,
}
