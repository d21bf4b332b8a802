-- F.scaled_dot_product_attention dispatches on CUDA to one of its fused backends (flash,
-- memory-efficient, cuDNN) by a fixed priority order, not by measurement: recent PyTorch puts
-- cuDNN first on Hopper and Blackwell GPUs when the runtime cuDNN is new enough (2.11 does on an
-- H200, measured), older releases flash. On those GPUs whether cuDNN or flash attention is faster depends on the shapes, so where
-- fused attention is a large part of the step the rule names the other backend's recipe and the
-- autotester measures it; the rule claims no gain. cuDNN attention refuses deterministic
-- algorithms: with them on, the rule says so and names no recipe.
--
-- Separately, SDPA that ran its unfused math path on a CUDA step is reported: a fused backend
-- could not take the inputs.
--
-- Each backend's forward and backward are summed as the aten ops that run them, not the autograd
-- nodes that call the backward ones (facts.ops times are inclusive).

local BACKENDS = {
  { name = "cuDNN attention", recipe = "sdpa-flash-backend", other = "flash attention",
    ops = advisor.set{ "aten::_scaled_dot_product_cudnn_attention",
                       "aten::_scaled_dot_product_cudnn_attention_backward" } },
  { name = "flash attention", recipe = "sdpa-cudnn-backend", other = "cuDNN attention",
    ops = advisor.set{ "aten::_scaled_dot_product_flash_attention",
                       "aten::_scaled_dot_product_flash_attention_backward" } },
  { name = "memory-efficient attention", recipe = "sdpa-cudnn-backend", other = "cuDNN attention",
    ops = advisor.set{ "aten::_scaled_dot_product_efficient_attention",
                       "aten::_scaled_dot_product_efficient_attention_backward" } },
}
local MATH_OP = "aten::_scaled_dot_product_attention_math"
-- What the bisection's hot spot names when it ended in attention: the backward nodes and the ops.
local ATTENTION_OPS = advisor.set{
  "aten::scaled_dot_product_attention", MATH_OP,
  "aten::_scaled_dot_product_cudnn_attention", "ScaledDotProductCudnnAttentionBackward0",
  "aten::_scaled_dot_product_flash_attention", "ScaledDotProductFlashAttentionBackward0",
  "aten::_scaled_dot_product_efficient_attention", "ScaledDotProductEfficientAttentionBackward0",
}
-- Name fragments of Hopper and Blackwell GPUs (compute capability 9.0 and 10.0), where PyTorch
-- has both flash and cuDNN attention and which one is faster depends on the shapes.
local HOPPER_OR_BLACKWELL = { "H100", "H200", "H800", "H20", "GH200", "B100", "B200", "GB200" }
local MIN_SHARE = 0.10         -- attention takes a tenth of the step: worth measuring the other
local MEDIUM_SHARE = 0.30

-- The module that runs attention: the hot spot when it ended there, otherwise the costliest
-- measured module whose forward calls SDPA ("" when none was measured).
local function attention_path(facts)
  local hotspot = facts.hotspot
  if hotspot ~= nil and ATTENTION_OPS[hotspot.op] then return hotspot.path end
  return (advisor.costliest_module_with_op(facts.modules, "aten::scaled_dot_product_attention"))
end

-- The finding about which fused backend ran, or nil.
local function backend_finding(facts)
  local run = facts.run
  if not advisor.has_fragment(run.device_name, HOPPER_OR_BLACKWELL) then return nil end
  local total_ms, all, ran, ran_ms = 0, {}, nil, 0
  for _, backend in ipairs(BACKENDS) do
    local ms, _, matched = advisor.sum_ops(facts.ops, backend.ops)
    total_ms = total_ms + ms
    for _, op in ipairs(matched) do all[#all + 1] = op end
    if ms > ran_ms then ran, ran_ms = backend, ms end
  end
  local share = advisor.share(total_ms, facts.step.ms)
  if ran == nil or share < MIN_SHARE then return nil end
  table.sort(all, function(a, b) return advisor.op_ms(a) > advisor.op_ms(b) end)

  -- cuDNN attention cannot run with deterministic algorithms; flash can, so it stays a candidate.
  local blocked = ran.recipe == "sdpa-cudnn-backend" and run.deterministic
  local message
  if blocked then
    message = "Attention runs on " .. ran.name .. ". cuDNN attention is faster for some shapes on "
      .. "Hopper and Blackwell GPUs, but it refuses deterministic algorithms, which this run "
      .. "uses: it can only be tried with them off."
  else
    message = "Attention runs on " .. ran.name .. ", which PyTorch picks by a fixed priority "
      .. "order, not by measurement; on Hopper and Blackwell GPUs " .. ran.other .. " is faster "
      .. "for some shapes. Measure it: torch.nn.attention.sdpa_kernel selects the backend."
  end
  return {
    severity = share >= MEDIUM_SHARE and "medium" or "low",
    path = attention_path(facts),
    op = all[1].name,
    message = message,
    evidence = string.format("%s (%s) takes %s per step, %s of the step, on %s%s", ran.name,
      advisor.names(all), advisor.ms(total_ms), advisor.pct(share), run.device_name,
      blocked and ", with deterministic algorithms on" or ""),
    recipe = blocked and "" or ran.recipe,
  }
end

-- The finding about SDPA's unfused math path, or nil.
local function math_finding(facts)
  local ms = advisor.sum_ops(facts.ops, advisor.set{ MATH_OP })
  local share = advisor.share(ms, facts.step.ms)
  if share < MIN_SHARE then return nil end
  return {
    severity = "medium",
    path = attention_path(facts),
    op = MATH_OP,
    message = "scaled_dot_product_attention fell back to its unfused math path, which builds the "
      .. "full score matrix. The usual causes: float32 inputs where no enabled fused backend takes "
      .. "them (flash and cuDNN take float16 and bfloat16 only), an attention mask or dropout the "
      .. "fused kernels reject, a head dimension beyond their limits, or deterministic "
      .. "algorithms.",
    evidence = string.format("%s takes %s per step, %s of the step, on %s (its backward runs "
      .. "as ordinary matmul and softmax nodes, not counted here)", MATH_OP, advisor.ms(ms),
      advisor.pct(share), facts.run.device_name),
  }
end

return {
  id = "sdpa-backend",
  title = "Scaled dot-product attention on a backend chosen by priority, not measurement",
  description = "Fused SDPA on a Hopper or Blackwell GPU: measure the other of cuDNN and flash "
    .. "attention; SDPA on its unfused math path on CUDA.",
  check = function(facts)
    if facts.run.device ~= "cuda" then return {} end
    local findings = {}
    for _, find in ipairs({ backend_finding, math_finding }) do
      findings[#findings + 1] = find(facts)  -- nil adds nothing
    end
    return findings
  end,
}
