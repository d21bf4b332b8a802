#include "engine/script/stage_message.h"

#include <algorithm>

#include "engine/script/message_fields.h"

namespace advisor {
namespace {

using namespace message_fields;
using nlohmann::json;

// Bounds far above any pipeline's, on what a broken probe can make advisor hold.
constexpr std::size_t kMaxTransforms = 10'000;
constexpr std::size_t kMaxLineRecords = 100'000;
constexpr std::size_t kMaxBatches = 1'000'000;
constexpr std::size_t kMaxDims = 32;

std::vector<long long> Shape(const json& object, const char* key, const char* what) {
  std::vector<long long> shape;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return shape;
  for (const json& extent : Array(*it, kMaxDims, what)) shape.push_back(Count(extent, what));
  return shape;
}

// [file, line, text] or null.
std::optional<SourceLocation> Location(const json& object, const char* key, const char* what) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  const json& where = Array(*it, 3, what);
  if (where.size() != 3) throw ProbeMessageError(std::string(what) + ": not [file, line, text]");
  SourceLocation location;
  location.file = Text(where[0], what);
  location.line = SmallCount(where[1], what);
  location.text = Text(where[2], what);
  return location;
}

StageTransform ReadTransform(const json& entry) {
  if (!entry.is_object()) throw ProbeMessageError("stage pieces: an entry is not an object");
  StageTransform transform;
  transform.name = Text(Field(entry, "name"), "stage piece name");
  transform.defined_at = Location(entry, "defined_at", "stage piece defined_at");
  transform.called_at = Location(entry, "called_at", "stage piece called_at");
  transform.input_shape = Shape(entry, "input_shape", "stage piece input_shape");
  transform.output_shape = Shape(entry, "output_shape", "stage piece output_shape");
  transform.dtype = TextOr(entry, "dtype", "stage piece dtype");
  if (auto binary = entry.find("input_is_binary"); binary != entry.end() && !binary->is_null()) {
    transform.input_is_binary = Flag(*binary, "stage piece input_is_binary");
  }
  return transform;
}

StageLine ReadLine(const json& entry) {
  const json& line = Array(entry, 4, "stage lines");
  if (line.size() != 4) throw ProbeMessageError("stage lines: not [file, line, text, op]");
  StageLine out;
  out.source.file = Text(line[0], "stage line file");
  out.source.line = SmallCount(line[1], "stage line number");
  out.source.text = Text(line[2], "stage line text");
  out.op = Text(line[3], "stage line op");
  return out;
}

// [[index, ns], ...] with every index below `size`.
std::vector<std::pair<int, TimeNs>> Times(const json& value, std::size_t size, const char* what) {
  std::vector<std::pair<int, TimeNs>> times;
  for (const json& pair : Array(value, size, what)) {
    if (!pair.is_array() || pair.size() != 2) {
      throw ProbeMessageError(std::string(what) + ": not [index, ns]");
    }
    const long long index = Count(pair[0], what);
    if (static_cast<std::size_t>(index) >= size) {
      throw ProbeMessageError(std::string(what) + ": index " + std::to_string(index) +
                              " names no entry");
    }
    times.emplace_back(static_cast<int>(index), Count(pair[1], what));
  }
  return times;
}

StageBatch ReadBatch(const json& entry, const StageRecords& records) {
  if (!entry.is_object()) throw ProbeMessageError("stage batches: an entry is not an object");
  StageBatch batch;
  batch.worker = SmallCount(Field(entry, "worker"), "stage batch worker");
  if (batch.worker > records.workers) {
    throw ProbeMessageError("stage batch worker: " + std::to_string(batch.worker) + " of " +
                            std::to_string(records.workers) + " workers");
  }
  batch.start_ns = Count(Field(entry, "start"), "stage batch start");
  batch.end_ns = Count(Field(entry, "end"), "stage batch end");
  if (batch.end_ns < batch.start_ns) throw ProbeMessageError("stage batch: ends before it starts");
  batch.items = SmallCount(Field(entry, "items"), "stage batch items");
  batch.items_ns = Count(Field(entry, "items_ns"), "stage batch items_ns");
  batch.transforms =
      Times(Field(entry, "pieces"), records.transforms.size(), "stage batch pieces");
  batch.sampled_items = SmallCount(Field(entry, "sampled"), "stage batch sampled");
  batch.sampled_ns = Count(Field(entry, "sampled_ns"), "stage batch sampled_ns");
  if (batch.sampled_items > batch.items || batch.sampled_ns > batch.items_ns) {
    throw ProbeMessageError("stage batch sampled: more items or time than the batch has");
  }
  batch.lines = Times(Field(entry, "lines"), records.lines.size(), "stage batch lines");
  return batch;
}

}  // namespace

StageRecords ReadStageRecords(const json& stage) {
  if (!stage.is_object()) throw ProbeMessageError("stage: not an object");
  StageRecords records;
  records.workers = SmallCount(Field(stage, "workers"), "stage workers");
  records.cores = SmallCount(Field(stage, "cores"), "stage cores");
  if (const json& output = Field(stage, "output"); !output.is_null()) {
    const json& pair = Array(output, 2, "stage output");
    if (pair.size() != 2) throw ProbeMessageError("stage output: not [shape, dtype]");
    for (const json& extent : Array(pair[0], kMaxDims, "stage output shape")) {
      records.output_shape.push_back(Count(extent, "stage output shape"));
    }
    records.output_dtype = Text(pair[1], "stage output dtype");
  }
  for (const json& entry : Array(Field(stage, "pieces"), kMaxTransforms, "stage pieces")) {
    records.transforms.push_back(ReadTransform(entry));
  }
  for (const json& entry : Array(Field(stage, "lines"), kMaxLineRecords, "stage lines")) {
    records.lines.push_back(ReadLine(entry));
  }
  for (const json& entry : Array(Field(stage, "batches"), kMaxBatches, "stage batches")) {
    records.batches.push_back(ReadBatch(entry, records));
  }
  return records;
}

}  // namespace advisor
