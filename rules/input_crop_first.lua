-- A transform of the input stage that runs on images larger than the stage's output does work
-- on pixels a later crop or resize throws away. Cropping or resizing first makes it run at the
-- output's size: exactly the same for pointwise transforms (flips, colour, thresholds), within
-- the transform's reach of the border for ones that look at neighbours (blur, dilation), which
-- a margin of that reach keeps exact. The crop-first recipe makes that move in a model's input
-- stage (a TorchScript rewrite; a script gets the change as a suggestion at its line).
-- facts.data.stage (docs/facts.md): its pieces heaviest first, each with the shapes it ran at.

local MIN_SHARE = 0.10        -- of one batch's preparation
local MIN_AREA_RATIO = 1.25   -- the piece works on at least 1.25x the output's pixels
local HIGH_SAVED = 0.20       -- of the step: the wait the smaller images would save
local MEDIUM_SAVED = 0.05

-- The heaviest piece of `kind` that runs, in and out, at a larger image area than the output.
local function larger_than_output(stage, kind, out_area)
  for _, piece in ipairs(stage.pieces) do
    local area = advisor.image_area(piece.input_shape)
    local out = advisor.image_area(piece.output_shape)
    if piece.kind == kind and piece.share >= MIN_SHARE and area ~= nil
        and area >= MIN_AREA_RATIO * out_area and (out == nil or out > out_area) then
      return piece, area
    end
  end
  return nil
end

local function size(shape)
  return string.format("%dx%d", shape[#shape - 1], shape[#shape])
end

return {
  id = "input-crop-first",
  title = "Input transforms run before the crop or resize",
  check = function(facts)
    local stage = facts.data and facts.data.stage
    if stage == nil then return {} end
    local out_area = advisor.image_area(stage.output_shape)
    if out_area == nil or out_area <= 0 then return {} end
    -- A transform where the stage calls one; its heaviest line where it is written inline.
    local piece, area = larger_than_output(stage, "transform", out_area)
    if piece == nil then piece, area = larger_than_output(stage, "line", out_area) end
    if piece == nil then return {} end
    local waste = 1 - out_area / area
    local saved_ms = facts.data.wait_ms * piece.share * waste
    return {{
      severity = advisor.severity(advisor.share(saved_ms, facts.step.ms), HIGH_SAVED,
                                  MEDIUM_SAVED),
      message = string.format("%s runs on %s images that the input stage later crops or resizes "
        .. "to %s: crop or resize first, so that it runs at the output's size (exact for pointwise "
        .. "transforms; keep a margin of the reach of ones that look at neighbours).",
        advisor.stage_piece(piece), size(piece.input_shape), size(stage.output_shape)),
      evidence = string.format("%s takes %s of the batch (%s of %s) on %s images, %.1fx the pixels "
        .. "of the %s output", advisor.stage_piece(piece), advisor.pct(piece.share),
        advisor.ms(piece.ms), advisor.ms(stage.batch_ms), size(piece.input_shape), area / out_area,
        size(stage.output_shape))
        .. (piece.kind == "transform" and advisor.stage_heaviest_line(stage) or ""),
      recipe = "crop-first",
      source = piece.source,  -- where the user's code has it; nil where unknown
      expected_gain_ms = saved_ms,
    }}
  end,
}
