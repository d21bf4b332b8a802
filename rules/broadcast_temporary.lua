-- A materialised broadcast temporary: an elementwise op whose inputs, broadcast together, make
-- many times the elements of the largest of them (z[:, :, None] - z[:, None, :] of [B, T, D]
-- writes B x T x T x D), read right after by a reduction over the broadcast dimension (a sum of
-- squares, a norm). That is a pairwise distance or a dot product computed the slow way: the
-- temporary is written, read, and its gradient written again in the backward, each pass over
-- T times the data the inputs hold. ||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b computes it with one
-- matmul and no temporary (torch.cdist, for the distances themselves).
-- facts.broadcasts: the temporaries the bisection's level windows found, each with the ops that
-- read it and their cost with their backward nodes.

local MIN_SHARE = 0.05   -- medium from here
local HIGH_SHARE = 0.20
local MAX_FINDINGS = 3
-- Ops that reduce the temporary: what makes it avoidable. A broadcast whose result is itself the
-- output (an RBF expansion, an outer product used whole) is the work asked for.
local REDUCTIONS = advisor.set{
  "aten::sum", "aten::mean", "aten::norm", "aten::linalg_vector_norm", "aten::frobenius_norm",
  "aten::amax", "aten::amin", "aten::max", "aten::min", "aten::logsumexp", "aten::prod",
  "aten::argmax", "aten::argmin",
}

local function reduction_of(reads)
  for _, name in ipairs(reads) do
    if REDUCTIONS[name] then return name end
  end
  return nil
end

local function count(elements)
  if elements >= 1e6 then return string.format("%.1fM", elements / 1e6) end
  if elements >= 1e3 then return string.format("%.0fk", elements / 1e3) end
  return string.format("%d", elements)
end

return {
  id = "broadcast-temporary",
  title = "A broadcast temporary many times its inputs, reduced right after",
  check = function(facts)
    local findings = {}
    for _, temporary in ipairs(facts.broadcasts) do
      local reduction = reduction_of(temporary.reads)
      if reduction ~= nil and temporary.share >= MIN_SHARE and #findings < MAX_FINDINGS then
        local expansion = temporary.elements / temporary.input_elements
        local chain = temporary.op
        for _, name in ipairs(temporary.reads) do chain = chain .. " -> " .. name end
        findings[#findings + 1] = {
          severity = advisor.severity(temporary.share, HIGH_SHARE, MIN_SHARE),
          path = temporary.path,
          op = temporary.op,
          message = string.format("%s in %s's forward broadcasts its inputs into a temporary of "
            .. "%s elements, %.0fx the largest of them, and %s reduces it right after: "
            .. "pairwise distances or products computed the slow way, the temporary written, "
            .. "read and its gradient written again. Compute the reduction without it: "
            .. "||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b, as "
            .. "(a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :] "
            .. "- 2 * a @ b.transpose(-1, -2) (clamp at 0 before a square root), or "
            .. "torch.cdist(a, b) for the distances.",
            temporary.op, temporary.path == "" and "the model" or temporary.path,
            count(temporary.elements), expansion, reduction),
          evidence = string.format("%s: %s elements written from inputs of at most %s (%.0fx); "
            .. "it, the ops that read it and their backward take %s a step (%s of the step)",
            chain, count(temporary.elements), count(temporary.input_elements), expansion,
            advisor.ms(temporary.ms), advisor.pct(temporary.share)),
          -- The temporary's ops scale with its elements; the matmul that replaces them with the
          -- inputs' and the reduced result's, expansion times fewer.
          expected_gain_ms = temporary.ms * (1 - 1 / expansion),
        }
      end
    end
    return findings
  end,
}
