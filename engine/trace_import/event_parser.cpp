#include "engine/trace_import/event_parser.h"

#include <cstring>

#include "engine/trace_import/json_scan.h"

namespace advisor {
namespace {

using json_scan::FindStringEnd;
using json_scan::SkipSpace;

// The row being built; appended to the chunk only when the whole event parsed.
struct Row {
  EventCategory category = EventCategory::kNone;
  char phase = 0;
  std::uint32_t name = 0;
  std::int64_t pid = kAbsent;
  std::int64_t tid = kAbsent;
  std::int64_t ts_ns = kAbsent;
  std::int64_t dur_ns = 0;
  std::int64_t external_id = kAbsent;
  std::int64_t correlation = kAbsent;
  std::int64_t sequence_number = kAbsent;
  std::int64_t forward_thread = kAbsent;
  std::uint32_t input_type = 0;
  EventExtras extras;
  bool has_extras = false;
};

bool Is(std::string_view key, const char* known) { return key == known; }

// "stream 7" (some Kineto versions name GPU lanes so) as 7.
std::int64_t NumberInName(std::string_view text) {
  std::int64_t value = 0;
  bool digits = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      if (value > INT64_MAX / 10 - 10) return kAbsent;
      value = value * 10 + (c - '0');
      digits = true;
    } else if (digits) {
      return kAbsent;  // "7 x": not one number
    }
  }
  return digits ? value : kAbsent;
}

class EventReader {
 public:
  EventReader(const char* begin, const char* end, StringTable& strings)
      : p_(begin), end_(end), strings_(strings) {}

  // True when the event parsed; otherwise problem() and position() say what and where.
  bool Read(Row& row) {
    p_ = SkipSpace(p_, end_);
    if (!Expect('{', "an event is not a JSON object")) return false;
    bool has_ts = false;
    if (!Members([&](std::string_view key) { return Member(key, row, has_ts); })) return false;
    if (row.phase == 0) return Fail("the event has no \"ph\"");
    if (!has_ts && row.phase != 'M') return Fail("the event has no \"ts\"");
    if (row.dur_ns < 0) return Fail("the event's \"dur\" is negative");
    return true;
  }

  const char* problem() const { return problem_; }
  const char* position() const { return p_; }

 private:
  bool Fail(const char* problem) {
    problem_ = problem;
    return false;
  }

  bool Expect(char c, const char* problem) {
    if (p_ == end_ || *p_ != c) return Fail(problem);
    ++p_;
    return true;
  }

  // Calls member(key) for each member of the object whose '{' was read; member reads the value.
  template <typename Member>
  bool Members(Member&& member) {
    p_ = SkipSpace(p_, end_);
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    while (true) {
      std::string_view key;
      bool escaped = false;
      if (!String(key, escaped, "expected a member name")) return false;
      p_ = SkipSpace(p_, end_);
      if (!Expect(':', "expected ':' after a member name")) return false;
      p_ = SkipSpace(p_, end_);
      if (!member(key)) return false;
      p_ = SkipSpace(p_, end_);
      if (p_ < end_ && *p_ == ',') {
        p_ = SkipSpace(p_ + 1, end_);
        continue;
      }
      return Expect('}', "expected ',' or '}' in an object");
    }
  }

  // At a '"': the body (escapes not decoded) and whether it has any.
  bool String(std::string_view& body, bool& escaped, const char* problem) {
    if (p_ == end_ || *p_ != '"') return Fail(problem);
    const char* close = FindStringEnd(p_ + 1, end_, escaped);
    if (close == nullptr) return Fail("a string does not end inside the event");
    body = std::string_view(p_ + 1, static_cast<std::size_t>(close - p_ - 1));
    p_ = close + 1;
    return true;
  }

  bool InternedString(std::uint32_t& id) {
    std::string_view body;
    bool escaped = false;
    if (!String(body, escaped, "expected a string")) return false;
    if (!escaped) {
      id = strings_.Intern(body);
      return true;
    }
    if (!json_scan::Unescape(body, unescaped_)) return Fail("a malformed escape in a string");
    id = strings_.Intern(unescaped_);
    return true;
  }

  bool Skip() {
    const char* after = json_scan::SkipValue(p_, end_);
    if (after == nullptr) return Fail("a malformed value");
    p_ = after;
    return true;
  }

  // An integer argument: a JSON integer, or a string holding one ("Process Group Name": "0").
  // Any other value is skipped and leaves the argument absent.
  bool Integer(std::int64_t& value) {
    if (p_ < end_ && *p_ == '"') {
      std::string_view body;
      bool escaped = false;
      if (!String(body, escaped, "expected a string")) return false;
      std::int64_t parsed = 0;
      const char* end = body.data() + body.size();
      if (!body.empty() && json_scan::ParseInteger(body.data(), end, parsed) == end) value = parsed;
      return true;
    }
    const char* after = json_scan::ParseInteger(p_, end_, value);
    if (after != nullptr) {
      p_ = after;
      return true;
    }
    value = kAbsent;
    return Skip();
  }

  bool Integer32(std::int32_t& value) {
    std::int64_t wide = kAbsent;
    if (!Integer(wide)) return false;
    if (wide != kAbsent && wide >= INT32_MIN && wide <= INT32_MAX) {
      value = static_cast<std::int32_t>(wide);
    }
    return true;
  }

  // "grid": [512, 1, 1]
  bool Dimensions(std::int32_t (&dims)[3]) {
    if (p_ == end_ || *p_ != '[') return Skip();
    const char* start = p_;
    ++p_;
    for (int i = 0; i < 3; ++i) {
      p_ = SkipSpace(p_, end_);
      std::int64_t value = 0;
      const char* after = json_scan::ParseInteger(p_, end_, value);
      if (after == nullptr || value < 0 || value > INT32_MAX) break;
      dims[i] = static_cast<std::int32_t>(value);
      p_ = SkipSpace(after, end_);
      if (i < 2 && p_ < end_ && *p_ == ',') ++p_;
    }
    // Whatever shape it had, the array as a whole must be well formed.
    p_ = start;
    return Skip();
  }

  bool Microseconds(std::int64_t& ns) {
    const char* after = json_scan::ParseMicroseconds(p_, end_, ns);
    if (after == nullptr) return Fail("a time is not a number of microseconds");
    p_ = after;
    return true;
  }

  // "pid" and "tid": numbers, or names ("CPU functions", "stream 7").
  bool ProcessOrThread(std::int64_t& value) {
    if (p_ < end_ && *p_ == '"') {
      std::string_view body;
      bool escaped = false;
      if (!String(body, escaped, "expected a string")) return false;
      value = NumberInName(body);
      return true;
    }
    return Integer(value);
  }

  bool Member(std::string_view key, Row& row, bool& has_ts) {
    switch (key.size()) {
      case 2:
        if (Is(key, "ph")) {
          std::string_view body;
          bool escaped = false;
          if (!String(body, escaped, "\"ph\" is not a string")) return false;
          if (body.size() != 1) return Fail("\"ph\" is not one character");
          row.phase = body[0];
          return true;
        }
        if (Is(key, "ts")) {
          has_ts = true;
          return Microseconds(row.ts_ns);
        }
        if (Is(key, "id")) return Integer(row.correlation);
        break;
      case 3:
        if (Is(key, "cat")) {
          std::string_view body;
          bool escaped = false;
          if (!String(body, escaped, "\"cat\" is not a string")) return false;
          row.category = CategoryFromName(body);
          return true;
        }
        if (Is(key, "pid")) return ProcessOrThread(row.pid);
        if (Is(key, "tid")) return ProcessOrThread(row.tid);
        if (Is(key, "dur")) return Microseconds(row.dur_ns);
        break;
      case 4:
        if (Is(key, "name")) return InternedString(row.name);
        if (Is(key, "args")) {
          if (p_ == end_ || *p_ != '{') return Skip();
          ++p_;
          return Members([&](std::string_view arg) { return Argument(arg, row); });
        }
        break;
      default:
        break;
    }
    return Skip();
  }

  EventExtras& Extras(Row& row) {
    row.has_extras = true;
    return row.extras;
  }

  bool Argument(std::string_view key, Row& row) {
    // Most events carry few arguments, and most are not needed: dispatch on the first letter.
    switch (key.empty() ? '\0' : key[0]) {
      case 'E':
        if (Is(key, "External id")) return Integer(row.external_id);
        break;
      case 'e':
        if (Is(key, "external id")) return Integer(row.external_id);
        break;
      case 'c':
        if (Is(key, "correlation")) return Integer(row.correlation);
        break;
      case 'S':
        if (Is(key, "Sequence number")) return Integer(row.sequence_number);
        if (Is(key, "Seq")) return CollectiveInteger(row, &CollectiveArgs::seq);
        break;
      case 'F':
        if (Is(key, "Fwd thread id")) return Integer(row.forward_thread);
        break;
      case 'd':
        if (Is(key, "device")) {
          Extras(row).has_gpu = true;
          return Integer32(row.extras.gpu.device);
        }
        if (Is(key, "dtype")) return CollectiveString(row, &CollectiveArgs::dtype);
        break;
      case 's':
        if (Is(key, "stream")) {
          Extras(row).has_gpu = true;
          return Integer32(row.extras.gpu.stream);
        }
        if (Is(key, "shared memory")) return Integer32(Extras(row).gpu.shared_memory);
        break;
      case 'g':
        if (Is(key, "grid")) return Dimensions(Extras(row).gpu.grid);
        break;
      case 'b':
        if (Is(key, "block")) return Dimensions(Extras(row).gpu.block);
        if (Is(key, "bytes")) return Integer(Extras(row).gpu.bytes);
        break;
      case 'r':
        if (Is(key, "registers per thread")) return Integer32(Extras(row).gpu.registers_per_thread);
        break;
      case 'B':
        if (Is(key, "Bytes")) {
          Extras(row).has_memory = true;
          return Integer(row.extras.memory.bytes);
        }
        break;
      case 'T':
        if (Is(key, "Total Allocated")) return Integer(Extras(row).memory.total_allocated);
        if (Is(key, "Total Reserved")) return Integer(Extras(row).memory.total_reserved);
        break;
      case 'D':
        if (Is(key, "Device Type")) return Integer32(Extras(row).memory.device_type);
        if (Is(key, "Device Id")) return Integer32(Extras(row).memory.device_id);
        break;
      case 'P':
        if (Is(key, "Python id")) return Integer(Extras(row).python_id);
        if (Is(key, "Python parent id")) return Integer(Extras(row).python_parent_id);
        if (Is(key, "Process Group Name")) {
          return CollectiveString(row, &CollectiveArgs::process_group);
        }
        if (Is(key, "Process Group Description")) {
          return CollectiveString(row, &CollectiveArgs::group_description);
        }
        break;
      case 'M':
        if (Is(key, "Module Hierarchy")) {
          if (p_ == end_ || *p_ != '"') return Skip();
          return InternedString(Extras(row).module_hierarchy);
        }
        break;
      case 'C':
        if (Is(key, "Collective name")) return CollectiveString(row, &CollectiveArgs::name);
        break;
      case 'G':
        if (Is(key, "Group size")) return CollectiveInteger(row, &CollectiveArgs::group_size);
        break;
      case 'I':
        if (Is(key, "In msg nelems")) return CollectiveInteger(row, &CollectiveArgs::in_elements);
        if (Is(key, "Input type")) return FirstString(row.input_type);
        break;
      case 'O':
        if (Is(key, "Out msg nelems")) return CollectiveInteger(row, &CollectiveArgs::out_elements);
        break;
      default:
        break;
    }
    return Skip();
  }

  // The first string of an array (["float", "float", ""]); the whole array must be well formed.
  bool FirstString(std::uint32_t& id) {
    const char* start = p_;
    if (p_ < end_ && *p_ == '[') {
      p_ = SkipSpace(p_ + 1, end_);
      if (p_ < end_ && *p_ == '"' && !InternedString(id)) return false;
    }
    p_ = start;
    return Skip();
  }

  bool CollectiveString(Row& row, std::uint32_t CollectiveArgs::*field) {
    Extras(row).has_collective = true;
    if (p_ == end_ || *p_ != '"') {
      // A number where a name is expected ("Process Group Name": 0): its text is the name.
      const char* start = p_;
      if (!Skip()) return false;
      row.extras.collective.*field = strings_.Intern(std::string_view(start, p_ - start));
      return true;
    }
    return InternedString(row.extras.collective.*field);
  }

  bool CollectiveInteger(Row& row, std::int64_t CollectiveArgs::*field) {
    Extras(row).has_collective = true;
    return Integer(row.extras.collective.*field);
  }

  const char* p_;
  const char* end_;
  StringTable& strings_;
  std::string unescaped_;
  const char* problem_ = "";
};

void Append(const Row& row, EventChunk& chunk) {
  chunk.category.push_back(row.category);
  chunk.phase.push_back(row.phase);
  chunk.name.push_back(row.name);
  chunk.pid.push_back(row.pid);
  chunk.tid.push_back(row.tid);
  chunk.ts_ns.push_back(row.ts_ns);
  chunk.dur_ns.push_back(row.dur_ns);
  chunk.external_id.push_back(row.external_id);
  chunk.correlation.push_back(row.correlation);
  chunk.sequence_number.push_back(row.sequence_number);
  chunk.forward_thread.push_back(row.forward_thread);
  chunk.input_type.push_back(row.input_type);
  if (row.has_extras) {
    chunk.extra.push_back(static_cast<std::uint32_t>(chunk.extras.size()));
    chunk.extras.push_back(row.extras);
  } else {
    chunk.extra.push_back(EventChunk::kNoExtra);
  }
}

}  // namespace

const char* ParseEventAt(const char* begin, const char* end, ParsedBatch& batch) {
  EventReader reader(begin, end, batch.strings);
  Row row;
  if (!reader.Read(row)) return nullptr;
  Append(row, batch.chunk);
  return reader.position();
}

void ParseEvent(const char* begin, const char* end, std::uint64_t offset, ParsedBatch& batch) {
  EventReader reader(begin, end, batch.strings);
  Row row;
  if (reader.Read(row)) {
    Append(row, batch.chunk);
    return;
  }
  SkipEvent(offset + static_cast<std::uint64_t>(reader.position() - begin), reader.problem(),
            batch);
}

void SkipEvent(std::uint64_t at, const char* problem, ParsedBatch& batch) {
  ++batch.skipped;
  if (batch.problems.size() < kProblemsKept) {
    batch.problems.push_back("byte " + std::to_string(at) + ": " + problem +
                             "; the event is skipped");
  }
}

}  // namespace advisor
