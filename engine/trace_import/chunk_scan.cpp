#include "engine/trace_import/chunk_scan.h"

#include <cstring>

#include "engine/trace_import/json_scan.h"
#include "engine/trace_import/trace_error.h"

namespace advisor {
namespace {

// Steps back over whitespace from p (exclusive) to no further than `first`.
const char* SkipSpaceBack(const char* first, const char* p) {
  while (p > first && json_scan::IsSpace(p[-1])) --p;
  return p;
}

// Parses each event where it starts, so that the scanner need not find its end first (an event
// that does not parse, or runs past the chunk, is left to the scanner and parsed once found).
class ChunkSink : public ScanSink {
 public:
  ChunkSink(const char* text, ChunkScan& scan) : text_(text), scan_(scan) {}

  const char* EventAt(const char* begin, const char* end) override {
    return ParseEventAt(begin, end, scan_.parsed);
  }
  void Event(std::uint64_t begin, std::uint64_t end) override {
    ParseEvent(text_ + begin, text_ + end, begin, scan_.parsed);
  }
  void Skipped(std::uint64_t begin, const char* problem) override {
    SkipEvent(begin, problem, scan_.parsed);
  }
  void Member(const std::string& key, std::uint64_t begin, std::uint64_t end) override {
    scan_.members.push_back({key, begin, end});
  }

 private:
  const char* text_;
  ChunkScan& scan_;
};

}  // namespace

std::uint64_t NextCut(const char* text, std::uint64_t from, std::uint64_t limit) {
  const char* end = text + limit;
  const char* p = text + from;
  while (p < end) {
    p = static_cast<const char*>(std::memchr(p, '{', static_cast<std::size_t>(end - p)));
    if (p == nullptr) break;
    const char* comma = SkipSpaceBack(text, p);
    if (comma > text && comma[-1] == ',') {
      const char* brace = SkipSpaceBack(text, comma - 1);
      if (brace > text && brace[-1] == '}') return static_cast<std::uint64_t>(p - text);
    }
    ++p;
  }
  return limit;
}

ChunkScan ScanChunk(const DocumentScanner& start, const char* text, std::uint64_t begin,
                    std::uint64_t end) {
  ChunkScan scan{begin, end, start, start, {}, {}, nullptr};
  ChunkSink sink(text, scan);
  try {
    scan.after.Scan(text + begin, begin, end - begin, sink);
  } catch (const TraceError&) {
    scan.error = std::current_exception();
  }
  return scan;
}

}  // namespace advisor
