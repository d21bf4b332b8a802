#include "engine/script/stage_message.h"

#include <cstdint>

#include "engine/script/probe_messages.h"

namespace advisor {
namespace {

// Bounds far above any pipeline's, on what a broken probe can make advisor hold.
constexpr std::size_t kMaxTransforms = 10'000;
constexpr std::size_t kMaxLineRecords = 100'000;
constexpr std::size_t kMaxBatches = 1'000'000;
constexpr std::size_t kMaxDims = 32;

int SmallCount(const JsonField& field) {
  return static_cast<int>(field.Integer(0, kMaxProbeCount));
}

std::vector<long long> ShapeOf(const JsonField& extents) {
  std::vector<long long> shape;
  for (const JsonField& extent : extents.Elements(0, kMaxDims)) shape.push_back(extent.Integer(0));
  return shape;
}

// The shape at `key`; none where absent or null.
std::vector<long long> Shape(const JsonField& object, const char* key) {
  const std::optional<JsonField> extents = object.OptionalNonNull(key);
  return extents ? ShapeOf(*extents) : std::vector<long long>();
}

// [file, line, text] or null.
std::optional<SourceLocation> Location(const JsonField& object, const char* key) {
  const std::optional<JsonField> where = object.OptionalNonNull(key);
  if (!where) return std::nullopt;
  const std::vector<JsonField> parts = where->Elements(3, 3);
  SourceLocation location;
  location.file = parts[0].Text();
  location.line = SmallCount(parts[1]);
  location.text = parts[2].Text();
  return location;
}

StageTransform ReadTransform(const JsonField& entry) {
  StageTransform transform;
  transform.name = entry.Required("name").Text();
  transform.defined_at = Location(entry, "defined_at");
  transform.called_at = Location(entry, "called_at");
  transform.input_shape = Shape(entry, "input_shape");
  transform.output_shape = Shape(entry, "output_shape");
  transform.dtype = entry.OptionalText("dtype");
  if (auto binary = entry.OptionalNonNull("input_is_binary")) {
    transform.input_is_binary = binary->Bool();
  }
  return transform;
}

// [file, line, text, op].
StageLine ReadLine(const JsonField& entry) {
  const std::vector<JsonField> parts = entry.Elements(4, 4);
  StageLine out;
  out.source.file = parts[0].Text();
  out.source.line = SmallCount(parts[1]);
  out.source.text = parts[2].Text();
  out.op = parts[3].Text();
  return out;
}

// [[index, ns], ...] with every index below `size`.
std::vector<std::pair<int, TimeNs>> Times(const JsonField& list, std::size_t size) {
  std::vector<std::pair<int, TimeNs>> times;
  for (const JsonField& pair : list.Elements(0, size)) {
    const std::vector<JsonField> parts = pair.Elements(2, 2);
    const std::int64_t highest = static_cast<std::int64_t>(size) - 1;
    times.emplace_back(static_cast<int>(parts[0].Integer(0, highest)), parts[1].Integer(0));
  }
  return times;
}

StageBatch ReadBatch(const JsonField& entry, const StageRecords& records) {
  StageBatch batch;
  batch.worker = static_cast<int>(entry.Required("worker").Integer(0, records.workers));
  batch.start_ns = entry.Required("start").Integer(0);
  batch.end_ns = entry.Required("end").Integer(batch.start_ns);
  batch.items = SmallCount(entry.Required("items"));
  batch.items_ns = entry.Required("items_ns").Integer(0);
  batch.transforms = Times(entry.Required("pieces"), records.transforms.size());
  batch.sampled_items = static_cast<int>(entry.Required("sampled").Integer(0, batch.items));
  batch.sampled_ns = entry.Required("sampled_ns").Integer(0, batch.items_ns);
  batch.lines = Times(entry.Required("lines"), records.lines.size());
  return batch;
}

}  // namespace

StageRecords ReadStageRecords(const JsonField& stage) {
  StageRecords records;
  records.workers = SmallCount(stage.Required("workers"));
  records.cores = SmallCount(stage.Required("cores"));
  if (const JsonField output = stage.Required("output"); !output.IsNull()) {
    const std::vector<JsonField> pair = output.Elements(2, 2);
    records.output_shape = ShapeOf(pair[0]);
    records.output_dtype = pair[1].Text();
  }
  const JsonField pieces = stage.Required("pieces");
  for (const JsonField& entry : pieces.Elements(0, kMaxTransforms)) {
    records.transforms.push_back(ReadTransform(entry));
  }
  const JsonField lines = stage.Required("lines");
  for (const JsonField& entry : lines.Elements(0, kMaxLineRecords)) {
    records.lines.push_back(ReadLine(entry));
  }
  const JsonField batches = stage.Required("batches");
  for (const JsonField& entry : batches.Elements(0, kMaxBatches)) {
    records.batches.push_back(ReadBatch(entry, records));
  }
  return records;
}

}  // namespace advisor
