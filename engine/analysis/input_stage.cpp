#include "engine/analysis/input_stage.h"

#include <algorithm>
#include <map>

#include "engine/util/median.h"

namespace advisor {
namespace {

constexpr double kNsPerMs = 1e6;

bool SameLine(const SourceLocation& a, const SourceLocation& b) {
  return a.file == b.file && a.line == b.line;
}

// Where the report points for a transform: the line that calls it, unless that line calls
// others too (a Compose's loop), where its own definition tells it apart.
std::optional<SourceLocation> SourceOf(const StageTransform& transform,
                                       const std::vector<StageTransform>& all) {
  if (!transform.called_at) return transform.defined_at;
  const bool shared = std::any_of(all.begin(), all.end(), [&](const StageTransform& other) {
    return &other != &transform && other.called_at && SameLine(*other.called_at, *transform.called_at);
  });
  return shared && transform.defined_at ? transform.defined_at : transform.called_at;
}

}  // namespace

std::optional<InputStageProfile> SummariseInputStage(const StageRecords& records,
                                                     TimeNs window_start, TimeNs window_end) {
  std::vector<const StageBatch*> batches;
  for (const StageBatch& batch : records.batches) {
    if (batch.start_ns < window_end && batch.end_ns > window_start) batches.push_back(&batch);
  }
  if (batches.empty() || window_end <= window_start) return std::nullopt;

  InputStageProfile profile;
  profile.batches = static_cast<int>(batches.size());
  profile.cores = records.cores;
  profile.output_shape = records.output_shape;
  profile.output_dtype = records.output_dtype;
  std::vector<double> batch_ms, items;
  std::vector<std::vector<double>> transform_ms(records.transforms.size());
  std::map<int, TimeNs> line_ns;
  int sampled = 0;
  TimeNs busy_ns = 0;
  for (const StageBatch* batch : batches) {
    batch_ms.push_back((batch->end_ns - batch->start_ns) / kNsPerMs);
    items.push_back(batch->items);
    std::vector<double> in_batch(records.transforms.size(), 0.0);
    for (const auto& [index, ns] : batch->transforms) in_batch[index] += ns / kNsPerMs;
    for (std::size_t t = 0; t < in_batch.size(); ++t) transform_ms[t].push_back(in_batch[t]);
    for (const auto& [index, ns] : batch->lines) line_ns[index] += ns;
    sampled += batch->sampled_items;
    if (batch->worker > 0) {
      busy_ns += std::min(batch->end_ns, window_end) - std::max(batch->start_ns, window_start);
    }
  }
  profile.batch_ms = Median(batch_ms);
  if (records.workers > 0) {
    profile.worker_busy_share = std::min(
        1.0, static_cast<double>(busy_ns) /
                 (static_cast<double>(records.workers) * (window_end - window_start)));
  }
  const auto share = [&](double ms) { return profile.batch_ms > 0 ? ms / profile.batch_ms : 0.0; };

  for (std::size_t t = 0; t < records.transforms.size(); ++t) {
    const StageTransform& transform = records.transforms[t];
    InputStagePiece piece;
    piece.name = transform.name;
    piece.kind = "transform";
    piece.source = SourceOf(transform, records.transforms);
    piece.ms = Median(transform_ms[t]);
    piece.share = share(piece.ms);
    piece.input_shape = transform.input_shape;
    piece.output_shape = transform.output_shape;
    piece.dtype = transform.dtype;
    piece.input_is_binary = transform.input_is_binary;
    profile.pieces.push_back(std::move(piece));
  }

  std::vector<InputStagePiece> lines;
  const double items_per_batch = Median(items);
  for (const auto& [index, ns] : line_ns) {
    if (sampled == 0) break;
    const StageLine& line = records.lines[index];
    InputStagePiece piece;
    piece.name = line.op.empty() ? line.source.text : line.op;
    piece.kind = "line";
    piece.source = line.source;
    piece.ms = ns / kNsPerMs / sampled * items_per_batch;
    piece.share = share(piece.ms);
    if (piece.share >= kMinStageLineShare) lines.push_back(std::move(piece));
  }
  const auto heavier = [](const InputStagePiece& a, const InputStagePiece& b) { return a.ms > b.ms; };
  std::sort(lines.begin(), lines.end(), heavier);
  if (lines.size() > kMaxStageLines) lines.resize(kMaxStageLines);
  profile.pieces.insert(profile.pieces.end(), lines.begin(), lines.end());
  std::stable_sort(profile.pieces.begin(), profile.pieces.end(), heavier);
  return profile;
}

}  // namespace advisor
