-- Hand-written attention, softmax(q @ k.transpose(-2, -1) * scale) @ v, materialises the full
-- sequence x sequence score matrix in memory, forward and backward. Fused scaled-dot-product
-- attention (F.scaled_dot_product_attention: flash or memory-efficient kernels) never does, and
-- is several times faster at long sequences. A module is taken for hand-written attention when
-- its forward uses softmax with a batched matmul and a transpose (or einsum), and no SDPA op.
-- Instances of one module type (blocks.0.attn ... blocks.11.attn) make one finding.
--
-- What SDPA saves in memory: eager attention keeps each layer's probabilities (softmax's output,
-- which its backward needs) for backward, and with dropout on them the dropout's mask and the
-- dropped-out copy the product with v keeps; SDPA keeps neither (its backward recomputes them
-- from q, k and a log-sum-exp per row). The score matrix's elements are softmax's input as the op
-- probe recorded it (batch x heads x queries x keys); the layers are the instances of the type.
-- The memory section's kept_for_backward_mb of an instance bounds what it can give back.
-- A script's transformers model switches to SDPA by its own attn_implementation: recipe
-- hf-sdpa-attention, with that change to make, instead of the TorchScript rewrite.

local SOFTMAX = advisor.set{ "aten::softmax", "aten::_softmax", "aten::_safe_softmax" }
local MATMUL = advisor.set{ "aten::matmul", "aten::bmm", "aten::baddbmm" }
local TRANSPOSE = advisor.set{ "aten::transpose", "aten::permute", "aten::mT", "aten::swapaxes",
                               "aten::swapdims", "aten::t" }
local FUSED = advisor.set{
  "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
  "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention",
  "aten::_native_multi_head_attention",
}
local MEDIUM_SHARE = 0.05      -- the attention modules take 5% of the step together
local HIGH_SHARE = 0.20
local EXPECTED_SAVING = 0.4    -- fused attention at moderate sequence lengths
local MAX_TYPES = 3
local ELEMENT_BYTES = { float64 = 8, float32 = 4, bfloat16 = 2, float16 = 2 }
local DROPOUT = { "aten::dropout", "aten::native_dropout", "aten::feature_dropout" }
local MB = 1024 * 1024

local function uses_any(module, set)
  for kind in pairs(set) do
    if module.has_op[kind] then return true end
  end
  return false
end

local function hand_written_attention(module)
  if uses_any(module, FUSED) or not uses_any(module, SOFTMAX) then return false end
  return module.has_op["aten::einsum"] or (uses_any(module, MATMUL) and uses_any(module, TRANSPOSE))
end

-- Keeps the innermost matches: "blocks.0" is not reported when "blocks.0.attn" is.
local function innermost(paths)
  local kept = {}
  for _, path in ipairs(paths) do
    local has_inner = false
    for _, other in ipairs(paths) do
      if other:sub(1, #path + 1) == path .. "." then has_inner = true end
    end
    if not has_inner then kept[#kept + 1] = path end
  end
  return kept
end

-- In a script the op types of a module whose submodules no window instrumented include theirs
-- (docs/facts.md): blocks.0 then matches for the attention inside it. Where another match sits
-- inside a module of blocks.0's type (blocks.1.attn in blocks.1, a Block too), blocks.0 holds that
-- same attention and is not reported apart.
local function largest_input(module, kinds)
  local elements = 0
  for _, kind in ipairs(kinds) do
    elements = math.max(elements, (module.op_input_elements or {})[kind] or 0)
  end
  return elements
end

-- The bytes SDPA would not keep for backward, in MB, and the evidence's sentence; nil where the
-- op probe recorded no score matrix.
local function predicted_saving(facts, group)
  local scores, dropped, kept_mb, kept_path = 0, false, nil, nil
  for _, path in ipairs(group.paths) do
    local module = facts.modules[path]
    local elements = largest_input(module, { "aten::softmax", "aten::_softmax", "aten::_safe_softmax" })
    scores = math.max(scores, elements)
    dropped = dropped or (elements > 0 and largest_input(module, DROPOUT) >= elements)
    if module.kept_for_backward_mb and (kept_mb == nil or module.kept_for_backward_mb > kept_mb) then
      kept_mb, kept_path = module.kept_for_backward_mb, path
    end
  end
  if scores == 0 then return nil end
  local element = ELEMENT_BYTES[facts.run.dtype or "float32"] or 4
  -- native_dropout's mask is a bool tensor on CUDA; the CPU's dropout keeps a noise tensor of
  -- the input's dtype.
  local mask = facts.run.device == "cuda" and 1 or element
  local per_element = element + (dropped and (mask + element) or 0)
  local layers = 0
  for _, module in pairs(facts.modules) do
    if module.type == group.type then layers = layers + 1 end
  end
  local per_layer_mb = scores * per_element / MB
  local measured = ""
  if kept_mb then
    measured = string.format("; %s keeps %.1f MB for backward, as measured%s", kept_path, kept_mb,
                             kept_mb < per_layer_mb and ", which bounds a layer's saving" or "")
    per_layer_mb = math.min(per_layer_mb, kept_mb)
  end
  local sentence = string.format(
    "SDPA keeps no score matrix: %.0f MB less at the peak predicted, %.1f MB a layer x %d layers "
    .. "(%d elements of aten::softmax's input x %d bytes kept per element: the probabilities%s)%s",
    per_layer_mb * layers, per_layer_mb, layers, scores, per_element,
    dropped and ", dropout's mask and the dropped-out copy" or "", measured)
  return per_layer_mb * layers, sentence
end

local function is_transformers(type)
  return type:sub(1, #"transformers.") == "transformers."
end

local function inside_module_of_type(path, type, modules)
  local parent = path:match("^(.*)%.[^.]*$")
  while parent do
    if modules[parent] and modules[parent].type == type then return true end
    parent = parent:match("^(.*)%.[^.]*$")
  end
  return false
end

local function without_containers_of_matches(paths, modules)
  local kept = {}
  for _, path in ipairs(paths) do
    local contains_one = false
    for _, other in ipairs(paths) do
      if other ~= path and inside_module_of_type(other, modules[path].type, modules) then
        contains_one = true
      end
    end
    if not contains_one then kept[#kept + 1] = path end
  end
  return kept
end

return {
  id = "materialised-attention",
  title = "Hand-written attention materialises the score matrix",
  check = function(facts)
    local matches = {}
    for path, module in pairs(facts.modules) do
      if hand_written_attention(module) then matches[#matches + 1] = path end
    end
    table.sort(matches)

    local groups, order = {}, {}
    for _, path in ipairs(without_containers_of_matches(innermost(matches), facts.modules)) do
      local module = facts.modules[path]
      local group = groups[module.type]
      if group == nil then
        group = { type = module.type, paths = {}, ms = 0, measured = false, hottest = path }
        groups[module.type] = group
        order[#order + 1] = group
      end
      group.paths[#group.paths + 1] = path
      if module.ms then
        group.measured = true
        group.ms = group.ms + module.ms
        if module.ms > (facts.modules[group.hottest].ms or -1) then group.hottest = path end
      end
    end
    table.sort(order, function(a, b) return a.ms > b.ms end)

    local findings = {}
    for i = 1, math.min(#order, MAX_TYPES) do
      local group = order[i]
      local share = advisor.share(group.ms, facts.step.ms)
      local kinds = facts.modules[group.hottest].op_types
      local others = #group.paths > 1
        and string.format(" and %d more modules of its type", #group.paths - 1) or ""
      local saving_mb, saving = predicted_saving(facts, group)
      local switch = facts.run.mode == "script" and is_transformers(group.type)
      local message = switch
        and "Attention in " .. group.hottest .. others .. " is transformers' eager attention, "
          .. "which builds the full score matrix. Load the model with "
          .. "attn_implementation=\"sdpa\" (from_pretrained(..., attn_implementation=\"sdpa\") "
          .. "or from_config(config, attn_implementation=\"sdpa\")): transformers then runs "
          .. "F.scaled_dot_product_attention."
        or "Attention in " .. group.hottest .. others .. " is written by hand and builds the "
          .. "full score matrix. Use F.scaled_dot_product_attention (flash or memory-efficient "
          .. "kernels)."
      local timing = group.measured
        and string.format("%s per step forward and backward (%s of the step)",
                          advisor.ms(group.ms), advisor.pct(share))
        or "not timed by the bisection"
      findings[#findings + 1] = {
        severity = group.measured and advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE) or "low",
        path = group.hottest,
        op = "aten::softmax",
        message = message,
        evidence = string.format("%s%s: %s; its forward uses %s and no fused attention op%s",
          group.hottest, others, timing, table.concat(kinds, ", "),
          saving and "; " .. saving or ""),
        recipe = switch and "hf-sdpa-attention" or "sdpa-attention",
        expected_gain_ms = group.measured and group.ms * EXPECTED_SAVING or nil,
        expected_saving_mb = saving_mb,
      }
    end
    return findings
  end,
}
