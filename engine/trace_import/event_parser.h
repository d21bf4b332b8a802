// One trace event (one JSON object of the traceEvents array) into the columns of an EventChunk.
// Only the fields advisor uses are converted; every other member is skipped unread.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/trace_import/event_store.h"

namespace advisor {

// A parser thread's own string table: ids are local to its batch until the store merges them.
class LocalStrings {
 public:
  LocalStrings();
  std::uint32_t Intern(std::string_view text);
  const std::deque<std::string>& strings() const { return strings_; }

 private:
  std::deque<std::string> strings_;
  std::unordered_map<std::string_view, std::uint32_t> index_;
};

// The events of one batch, with the strings they name and the events that had to be skipped.
struct ParsedBatch {
  EventChunk chunk;
  LocalStrings strings;
  std::uint64_t skipped = 0;
  std::vector<std::string> problems;  // the first few: "byte N: ..."
};

// How many skip reasons a batch keeps; the count covers all of them.
inline constexpr std::size_t kProblemsKept = 5;

// Parses the event [begin, end), which starts `offset` bytes into the JSON text, into `batch`:
// appended to its chunk, or counted as skipped with the problem and its byte offset.
void ParseEvent(const char* begin, const char* end, std::uint64_t offset, ParsedBatch& batch);

}  // namespace advisor
