// One trace event (one JSON object of the traceEvents array) into the columns of an EventChunk.
// Only the fields advisor uses are converted; every other member is skipped unread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/trace_import/event_store.h"

namespace advisor {

// The events of one batch, with the strings they name and the events that had to be skipped.
struct ParsedBatch {
  EventChunk chunk;
  StringTable strings;  // the batch's own: its ids are local until the store merges them
  std::uint64_t skipped = 0;
  std::vector<std::string> problems;  // the first few: "byte N: ..."
};

// How many skip reasons a batch keeps; the count covers all of them.
inline constexpr std::size_t kProblemsKept = 5;

// Counts an event as skipped for `problem` at byte `at`, keeping the first few problems.
void SkipEvent(std::uint64_t at, const char* problem, ParsedBatch& batch);

// Parses the event [begin, end), which starts `offset` bytes into the JSON text, into `batch`:
// appended to its chunk, or counted as skipped with the problem and its byte offset.
void ParseEvent(const char* begin, const char* end, std::uint64_t offset, ParsedBatch& batch);

// Parses the event that starts at `begin` ('{') and ends somewhere before `end`, so that the
// scanner need not find its end first: the position after it when it parsed, appended to `batch`;
// nullptr, with nothing recorded, when it did not (malformed, or cut off at `end`), and the
// scanner finds its end and hands it to ParseEvent, which says why.
const char* ParseEventAt(const char* begin, const char* end, ParsedBatch& batch);

}  // namespace advisor
