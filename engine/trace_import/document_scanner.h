// Finds the events of a Chrome trace, and the top-level members the reader keeps, in JSON text
// that arrives block by block (or chunk by chunk, each from a state of its own: chunk_scan.h),
// without parsing them: a pass that tracks only strings and nesting. The sink parses the events,
// where they start (EventAt) or once their end is found (Event).
//
// Two document shapes are accepted: {"traceEvents": [...], ...} (Kineto; other members may come
// before or after the array) and a bare array of events (torch.autograd.profiler's own exporter).
#pragma once

#include <cstdint>
#include <string>

namespace advisor {

// Where the scanner hands what it found; offsets are absolute byte offsets in the JSON text.
class ScanSink {
 public:
  virtual ~ScanSink() = default;
  // One element of the event array that is a JSON object: [begin, end).
  virtual void Event(std::uint64_t begin, std::uint64_t end) = 0;
  // An element that starts with '{' at `begin`, offered before the scanner looks for its end: a
  // sink that parses it whole before `end` returns the position after it, and the scanner goes
  // on from there without Event; nullptr leaves the element to the scanner.
  virtual const char* EventAt(const char* /*begin*/, const char* /*end*/) { return nullptr; }
  // An element of the event array that cannot be an event: not an object, or cut off by the end
  // of the file (counted as a skipped event).
  virtual void Skipped(std::uint64_t begin, const char* problem) = 0;
  // The value of a top-level member named by DocumentScanner::IsKeptMember: [begin, end).
  virtual void Member(const std::string& key, std::uint64_t begin, std::uint64_t end) = 0;
};

class DocumentScanner {
 public:
  // Members of the top-level object worth keeping: small, and read after the scan.
  static bool IsKeptMember(const std::string& key);
  // A kept member larger than this is skipped instead (its text would have to be held).
  static constexpr std::uint64_t kMaxKeptMemberBytes = 16u << 20;

  // `path` names the file in errors. An event larger than `max_event_bytes`, or a scan that
  // would have to hold more text than that, is an error rather than a reason to hold unbounded
  // text.
  explicit DocumentScanner(std::string path, std::uint64_t max_event_bytes = UINT64_MAX)
      : path_(std::move(path)), max_event_bytes_(max_event_bytes) {}
  DocumentScanner() = default;

  // A scanner for the same file that assumes the text from `offset` on starts inside the event
  // array, where an element is expected: a guess that SameStateAs checks against the real scan
  // (chunk_scan.h). `top_level_array`: the document is a bare array of events.
  DocumentScanner InEventArray(std::uint64_t offset, bool top_level_array) const;

  // True when the two are at one position in one state, so that scanning on gives the same
  // events, members and errors from either.
  bool SameStateAs(const DocumentScanner& other) const;

  // Scans the text [offset, offset + size) held at `data`; `offset` must be where the previous
  // call stopped (text before RetainFrom() may be re-offered and is skipped). Throws TraceError
  // (file, byte offset, problem) for text that is not a trace.
  void Scan(const char* data, std::uint64_t offset, std::uint64_t size, ScanSink& sink);

  // After the last block: throws TraceError when the document is incomplete in a way that leaves
  // no events to read. A file that ends inside the event array (a trace cut off) is accepted:
  // truncated() says so, and an event cut off is reported to the sink as not an event.
  void Finish(ScanSink& sink);

  // The first byte a later Scan still needs in memory: the start of the event or kept member in
  // progress; position() when nothing before it is needed.
  std::uint64_t RetainFrom() const;
  std::uint64_t position() const { return position_; }
  bool found_events() const { return found_events_; }
  bool top_level_array() const { return top_level_array_; }
  bool truncated() const { return truncated_; }

 private:
  // Where in the document the next byte is.
  enum class State {
    kStart,            // before the top-level value
    kKey,              // in the top-level object: a member name or '}' next
    kKeyText,          // inside a member name
    kColon,            // ':' next
    kMemberValue,      // a member's value next
    kAfterMember,      // ',' or '}' next
    kEventsNext,       // in the event array: an element or ']' next
    kAfterEvent,       // in the event array: ',' or ']' next
    kInValue,          // inside a value (an event, a member's value): see value_
    kDone,             // after the top-level value: only whitespace may follow
  };
  // What the value being scanned is, and what comes after it.
  enum class ValueRole { kEvent, kNotAnEvent, kKeptMember, kSkippedMember };

  [[noreturn]] void Fail(std::uint64_t at, const std::string& problem) const;
  [[noreturn]] void FailTooLarge(std::uint64_t at) const;
  // At the value's first character, `at`; returns the position after what it consumed.
  const char* BeginValue(const char* p, std::uint64_t at, ValueRole role);
  void EndValue(std::uint64_t end, ScanSink& sink);
  // Scans inside the current value from p (data holds offset 0 of this block); returns where it
  // stopped: after the value's end, or at `end`.
  const char* ScanValue(const char* p, const char* end, const char* data, std::uint64_t offset,
                        ScanSink& sink);
  void EndEventArray();

  std::string path_;
  std::uint64_t max_event_bytes_ = UINT64_MAX;
  State state_ = State::kStart;
  std::uint64_t position_ = 0;
  bool top_level_array_ = false;
  bool found_events_ = false;
  bool truncated_ = false;

  std::string key_;  // the member name being read, or the last one

  // The value in progress.
  ValueRole role_ = ValueRole::kEvent;
  std::uint64_t value_begin_ = 0;
  std::uint64_t depth_ = 0;      // open brackets inside the value; 0 for a scalar
  bool in_string_ = false;
  bool escape_pending_ = false;  // the previous byte was a backslash inside a string
  bool scalar_ = false;          // a number or literal: ends at a delimiter
};

}  // namespace advisor
