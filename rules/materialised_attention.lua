-- Hand-written attention, softmax(q @ k.transpose(-2, -1) * scale) @ v, materialises the full
-- sequence x sequence score matrix in memory, forward and backward. Fused scaled-dot-product
-- attention (F.scaled_dot_product_attention: flash or memory-efficient kernels) never does, and
-- is several times faster at long sequences. A module is taken for hand-written attention when
-- its forward uses softmax with a batched matmul and a transpose (or einsum), and no SDPA op.
-- Instances of one module type (blocks.0.attn ... blocks.11.attn) make one finding.

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
      local timing = group.measured
        and string.format("%s per step forward and backward (%s of the step)",
                          advisor.ms(group.ms), advisor.pct(share))
        or "not timed by the bisection"
      findings[#findings + 1] = {
        severity = group.measured and advisor.severity(share, HIGH_SHARE, MEDIUM_SHARE) or "low",
        path = group.hottest,
        op = "aten::softmax",
        message = "Attention in " .. group.hottest .. others .. " is written by hand and builds "
          .. "the full score matrix. Use F.scaled_dot_product_attention (flash or "
          .. "memory-efficient kernels).",
        evidence = string.format("%s%s: %s; its forward uses %s and no fused attention op",
          group.hottest, others, timing, table.concat(kinds, ", ")),
        recipe = "sdpa-attention",
        expected_gain_ms = group.measured and group.ms * EXPECTED_SAVING or nil,
      }
    end
    return findings
  end,
}
