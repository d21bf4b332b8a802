-- Masks, dilations and thresholds hold 0 and 1: computed in float32 they move four times the
-- bytes that bool or uint8 would, and float kernels do work that logical ones skip. A piece of
-- the input stage whose input held only 0 and 1 in a floating-point dtype (checked on a sampled
-- batch, facts.data.stage) should keep the narrow dtype: compare into bool, dilate with logical
-- or (or max_pool2d on uint8), convert once at the end.

local MIN_SHARE = 0.10        -- of one batch's preparation
local HIGH_SHARE = 0.40
local EXPECTED_SAVING = 0.5   -- of the piece: a quarter of the bytes, in ops that are memory-bound

local function binary_in_float(stage, kind)
  for _, piece in ipairs(stage.pieces) do
    if piece.kind == kind and piece.input_is_binary == true and piece.dtype ~= nil
        and piece.dtype:find("float", 1, true) and piece.share >= MIN_SHARE then
      return piece
    end
  end
  return nil
end

return {
  id = "input-narrow-dtype",
  title = "Input transforms compute on masks in float",
  check = function(facts)
    local stage = facts.data and facts.data.stage
    if stage == nil then return {} end
    local piece = binary_in_float(stage, "transform") or binary_in_float(stage, "line")
    if piece == nil then return {} end
    return {{
      severity = advisor.severity(piece.share, HIGH_SHARE, MIN_SHARE),
      message = string.format("%s computes in %s on data that holds only 0 and 1 (a mask): keep it "
        .. "bool or uint8 (compare into bool, dilate with logical or or max_pool2d on uint8) and "
        .. "convert to float once, at the end.", advisor.stage_piece(piece), piece.dtype),
      evidence = string.format("%s takes %s of the batch (%s of %s); its input, %s %s, held only 0 "
        .. "and 1 on a sampled batch", advisor.stage_piece(piece), advisor.pct(piece.share),
        advisor.ms(piece.ms), advisor.ms(stage.batch_ms), table.concat(piece.input_shape, "x"),
        piece.dtype) .. (piece.kind == "transform" and advisor.stage_heaviest_line(stage) or ""),
      recipe = "",
      source = piece.source,  -- where the user's code has it; nil where unknown
      expected_gain_ms = facts.data.wait_ms * piece.share * EXPECTED_SAVING,
    }}
  end,
}
