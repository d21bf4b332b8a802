-- On Ampere and newer GPUs, float32 matrix multiplies run on CUDA cores unless TF32 is allowed
-- (PyTorch's default for matmul is off) or the model runs under bf16 autocast: tensor cores do the
-- same work up to 8x (TF32) or 16x (bf16) faster. TF32 is one line and keeps float32 storage;
-- bf16 autocast also halves memory traffic but changes numerics more. The rule offers both; the
-- autotester measures each.
--
-- facts.ops holds every op with its inclusive time, so only the ops that run the GEMMs are
-- summed (aten::linear and aten::matmul contain them).

local GEMM_OPS = advisor.set{ "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm" }
-- Name fragments of GPUs with TF32 and bf16 tensor cores (compute capability 8.0 and newer).
local AMPERE_OR_NEWER = { "A100", "A800", "A10", "A16", "A30", "A40", "A6000", "A5000", "A4000",
                          "RTX 30", "RTX 40", "RTX 50", "RTX A", "Ada", "L4", "L20", "H100", "H200",
                          "H800", "H20", "GH200", "B100", "B200", "GB200" }
local MIN_SHARE = 0.20         -- GEMMs take a fifth of the step
local HIGH_SHARE = 0.50
local TF32_SAVING = 0.5        -- of GEMM time; TF32 GEMMs are several times faster, but not all
local BF16_SAVING = 0.6        -- of the step's GEMMs are large enough to gain it all

return {
  id = "fp32-matmul",
  title = "float32 matrix multiplies on a tensor-core GPU",
  check = function(facts)
    local run = facts.run
    if run.device ~= "cuda" or run.dtype ~= "float32"
        or not advisor.has_fragment(run.device_name, AMPERE_OR_NEWER) then
      return {}
    end
    local ms, _, matched = advisor.sum_ops(facts.ops, GEMM_OPS)
    local share = advisor.share(ms, facts.step.ms)
    if share < MIN_SHARE then return {} end

    local severity = share >= HIGH_SHARE and "high" or "medium"
    local evidence = string.format("float32 GEMMs (%s) take %s per step, %s of the step, on %s",
      advisor.names(matched), advisor.ms(ms), advisor.pct(share), run.device_name)
    local findings = {{
      severity = severity,
      op = matched[1].name,
      message = "Matrix multiplies run in float32 on a GPU with bf16 tensor cores. Run the "
        .. "forward under torch.autocast(\"cuda\", dtype=torch.bfloat16).",
      evidence = evidence,
      recipe = "bf16-autocast",
      expected_gain_ms = ms * BF16_SAVING,
    }}
    if run.allow_tf32 ~= true then
      findings[#findings + 1] = {
        severity = severity,
        op = matched[1].name,
        message = "TF32 is off for matrix multiplies. torch.backends.cuda.matmul.allow_tf32 = "
          .. "True (or torch.set_float32_matmul_precision(\"high\")) runs them on tensor cores.",
        evidence = evidence,
        recipe = "tf32-matmul",
        expected_gain_ms = ms * TF32_SAVING,
      }
    end
    return findings
  end,
}
