-- Tensor cores compute convolutions in NHWC (channels-last) layout. A model in the default
-- NCHW layout makes cuDNN transpose activations around every convolution; converting the model
-- and its inputs once (model.to(memory_format=torch.channels_last)) removes those transposes.
-- Convolutions run on tensor cores in half precision and, by torch's default
-- (torch.backends.cudnn.allow_tf32), in float32 through TF32: both get a medium severity. Measured
-- on an H200, a float32 ResNet-50 trained 1.41x faster in channels-last (docs/benchmarks.md, real
-- models); other dtypes, or none reported, stay low. facts.run.memory_format is nil when the
-- runner did not report it.

local CONV_OPS = advisor.set{ "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
                              "aten::convolution_backward" }
-- Name fragments of GPUs with tensor cores (compute capability 7.0 and newer).
local TENSOR_CORE_GPUS = { "V100", "TITAN V", "T4", "RTX", "A100", "A800", "A10", "A16", "A30",
                           "A40", "L4", "L20", "H100", "H200", "H800", "H20", "B100", "B200" }
local TENSOR_CORE_DTYPES = advisor.set{ "float16", "bfloat16", "float32" }
local MIN_SHARE = 0.25         -- convolutions take a quarter of the step
local EXPECTED_SAVING = 0.2    -- of convolution time, from the transposes removed

return {
  id = "channels-last-convolutions",
  title = "Convolutions run in channels-first layout on tensor cores",
  check = function(facts)
    local run = facts.run
    if run.device ~= "cuda" or run.memory_format == "channels_last"
        or not advisor.has_fragment(run.device_name, TENSOR_CORE_GPUS) then
      return {}
    end
    local ms, _, matched = advisor.sum_ops(facts.ops, CONV_OPS)
    local share = advisor.share(ms, facts.step.ms)
    if share < MIN_SHARE then return {} end
    return {{
      severity = TENSOR_CORE_DTYPES[run.dtype] and "medium" or "low",
      op = matched[1].name,
      message = "Convolutions run in NCHW layout on tensor cores. Convert the model and its "
        .. "inputs to channels-last (memory_format=torch.channels_last).",
      evidence = string.format("convolutions take %s per step, %s of the step, in %s on %s",
        advisor.ms(ms), advisor.pct(share), run.dtype or "an unreported dtype", run.device_name),
      recipe = "channels-last",
      expected_gain_ms = ms * EXPECTED_SAVING,
    }}
  end,
}
