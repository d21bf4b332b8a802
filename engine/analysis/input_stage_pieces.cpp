#include "engine/analysis/input_stage_pieces.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "engine/util/median.h"

namespace advisor {
namespace {

struct PieceKey {
  std::string kind;
  std::string name;  // the transform's; "" for a line (named after its heaviest op)
  std::string file;
  int line = 0;
  auto Tied() const { return std::tie(kind, name, file, line); }
  bool operator<(const PieceKey& other) const { return Tied() < other.Tied(); }
  bool operator==(const PieceKey& other) const { return Tied() == other.Tied(); }
};

// The pieces an op belongs to: its transform (where it ran in one) and its line (where known).
std::vector<PieceKey> PiecesOf(const StageOpSample& op) {
  std::vector<PieceKey> keys;
  if (!op.transform.empty()) {
    keys.push_back({"transform", op.transform, op.transform_call ? op.transform_call->file : "",
                    op.transform_call ? op.transform_call->line : 0});
  }
  if (op.line) keys.push_back({"line", "", op.line->file, op.line->line});
  return keys;
}

struct PieceTotals {
  std::vector<double> per_batch;                 // ms in each timed batch
  std::map<std::string, double> ms_by_op;        // over all timed batches
  std::map<std::string, const StageOpSample*> first_of_op;
};

std::optional<bool> CheckedBinary(const StageBatchSample* checked, const PieceKey& key,
                                  const std::string& op) {
  if (checked == nullptr) return std::nullopt;
  std::optional<bool> binary;
  for (const StageOpSample& sample : checked->ops) {
    if (sample.op != op || !sample.input_is_binary) continue;
    const std::vector<PieceKey> keys = PiecesOf(sample);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
    binary = binary.value_or(true) && *sample.input_is_binary;
  }
  return binary;
}

}  // namespace

InputStageProfile SummarizeInputStage(const std::vector<StageBatchSample>& timed,
                                      const StageBatchSample* checked) {
  InputStageProfile profile;
  profile.batches = static_cast<int>(timed.size());
  std::vector<double> batch_ms;
  std::map<PieceKey, PieceTotals> pieces;
  for (std::size_t batch = 0; batch < timed.size(); ++batch) {
    batch_ms.push_back(timed[batch].ms);
    for (const StageOpSample& op : timed[batch].ops) {
      for (const PieceKey& key : PiecesOf(op)) {
        PieceTotals& totals = pieces[key];
        totals.per_batch.resize(timed.size(), 0.0);
        totals.per_batch[batch] += op.ms;
        totals.ms_by_op[op.op] += op.ms;
        totals.first_of_op.emplace(op.op, &op);
      }
    }
  }
  profile.batch_ms = Median(batch_ms);

  std::vector<InputStagePiece> transforms;
  std::vector<InputStagePiece> lines;
  for (auto& [key, totals] : pieces) {
    totals.per_batch.resize(timed.size(), 0.0);
    const auto heaviest = std::max_element(
        totals.ms_by_op.begin(), totals.ms_by_op.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    const StageOpSample& op = *totals.first_of_op.at(heaviest->first);
    InputStagePiece piece;
    piece.kind = key.kind;
    piece.name = key.kind == "transform" ? key.name : op.op;
    piece.source = key.kind == "transform" ? op.transform_call : op.line;
    piece.ms = Median(totals.per_batch);
    piece.share = profile.batch_ms > 0 ? piece.ms / profile.batch_ms : 0.0;
    piece.input_shape = op.input_shape;
    piece.output_shape = op.output_shape;
    piece.dtype = op.dtype;
    piece.input_is_binary = CheckedBinary(checked, key, op.op);
    (key.kind == "transform" ? transforms : lines).push_back(std::move(piece));
  }
  const auto heavier = [](const InputStagePiece& a, const InputStagePiece& b) {
    return a.ms > b.ms;
  };
  for (std::vector<InputStagePiece>* kind : {&transforms, &lines}) {
    std::stable_sort(kind->begin(), kind->end(), heavier);
    if (kind->size() > kInputStagePiecesPerKind) kind->resize(kInputStagePiecesPerKind);
    profile.pieces.insert(profile.pieces.end(), kind->begin(), kind->end());
  }
  std::stable_sort(profile.pieces.begin(), profile.pieces.end(), heavier);
  return profile;
}

std::optional<double> WorkerBusyShare(const std::vector<BusySpan>& spans, TimeNs start_ns,
                                      TimeNs end_ns, int workers) {
  if (workers <= 0 || end_ns <= start_ns) return std::nullopt;
  double busy_ns = 0;
  for (const BusySpan& span : spans) {
    const TimeNs from = std::max(span.start_ns, start_ns);
    const TimeNs to = std::min(span.end_ns, end_ns);
    if (to > from) busy_ns += static_cast<double>(to - from);
  }
  const double capacity_ns = static_cast<double>(workers) * static_cast<double>(end_ns - start_ns);
  return std::min(1.0, busy_ns / capacity_ns);
}

}  // namespace advisor
