#include "engine/trace_import/document_scanner.h"

#include <cstring>

#include "engine/trace_import/json_scan.h"
#include "engine/trace_import/trace_error.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace advisor {
namespace {

using json_scan::IsSpace;

constexpr char kNoEvents[] = "no \"traceEvents\" array: not a torch.profiler trace";

bool IsStructural(char c) { return c == '"' || c == '{' || c == '}' || c == '[' || c == ']'; }

// The next '"', '{', '}', '[' or ']' at or after p, or end: the only bytes that matter outside
// strings inside a value.
const char* FindStructural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i open_brace = _mm_set1_epi8('{');
  const __m128i close_brace = _mm_set1_epi8('}');
  const __m128i open_bracket = _mm_set1_epi8('[');
  const __m128i close_bracket = _mm_set1_epi8(']');
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hits = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, open_brace)),
        _mm_or_si128(_mm_cmpeq_epi8(chunk, close_brace),
                     _mm_or_si128(_mm_cmpeq_epi8(chunk, open_bracket),
                                  _mm_cmpeq_epi8(chunk, close_bracket))));
    const int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && !IsStructural(*p)) ++p;
  return p;
}

std::string Describe(char c) {
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) {
    static const char kHex[] = "0123456789abcdef";
    const auto byte = static_cast<unsigned char>(c);
    return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 15];
  }
  return std::string("'") + c + "'";
}

}  // namespace

bool DocumentScanner::IsKeptMember(const std::string& key) {
  return key == "deviceProperties" || key == "distributedInfo" || key == "baseTimeNanoseconds" ||
         key == "otherData";
}

DocumentScanner DocumentScanner::InEventArray(std::uint64_t offset, bool top_level_array) const {
  DocumentScanner scanner(path_, max_event_bytes_);
  scanner.state_ = State::kEventsNext;
  scanner.position_ = offset;
  scanner.top_level_array_ = top_level_array;
  scanner.found_events_ = true;
  if (!top_level_array) scanner.key_ = "traceEvents";
  return scanner;
}

bool DocumentScanner::SameStateAs(const DocumentScanner& other) const {
  if (state_ != other.state_ || position_ != other.position_ ||
      top_level_array_ != other.top_level_array_ || found_events_ != other.found_events_ ||
      truncated_ != other.truncated_ || key_ != other.key_) {
    return false;
  }
  // The value's fields are left from the last value outside one, and read only inside one
  // (BeginValue sets them all); a member name reads escape_pending_.
  if (state_ == State::kKeyText) return escape_pending_ == other.escape_pending_;
  if (state_ != State::kInValue) return true;
  return role_ == other.role_ && value_begin_ == other.value_begin_ && depth_ == other.depth_ &&
         in_string_ == other.in_string_ && escape_pending_ == other.escape_pending_ &&
         scalar_ == other.scalar_;
}

void DocumentScanner::Fail(std::uint64_t at, const std::string& problem) const {
  throw TraceError(path_, at, problem);
}

void DocumentScanner::FailTooLarge(std::uint64_t at) const {
  Fail(at, "an event larger than " + std::to_string(max_event_bytes_ >> 20) +
               " MiB: not a trace this reader accepts");
}

std::uint64_t DocumentScanner::RetainFrom() const {
  if (state_ == State::kInValue &&
      (role_ == ValueRole::kEvent || role_ == ValueRole::kKeptMember)) {
    return value_begin_;
  }
  return position_;
}

const char* DocumentScanner::BeginValue(const char* p, std::uint64_t at, ValueRole role) {
  role_ = role;
  value_begin_ = at;
  depth_ = 0;
  in_string_ = false;
  escape_pending_ = false;
  scalar_ = false;
  state_ = State::kInValue;
  const char c = *p;
  if (c == '{' || c == '[') {
    depth_ = 1;
    return p + 1;
  }
  if (c == '"') {
    in_string_ = true;
    return p + 1;
  }
  if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
    scalar_ = true;
    return p;
  }
  Fail(at, "unexpected " + Describe(c) + " where a JSON value should start");
}

void DocumentScanner::EndValue(std::uint64_t end, ScanSink& sink) {
  switch (role_) {
    case ValueRole::kEvent:
      if (end - value_begin_ > max_event_bytes_) FailTooLarge(value_begin_);
      sink.Event(value_begin_, end);
      state_ = State::kAfterEvent;
      return;
    case ValueRole::kNotAnEvent:
      sink.Skipped(value_begin_, "an element of the event array is not a JSON object");
      state_ = State::kAfterEvent;
      return;
    case ValueRole::kKeptMember:
      sink.Member(key_, value_begin_, end);
      state_ = State::kAfterMember;
      return;
    case ValueRole::kSkippedMember:
      state_ = State::kAfterMember;
      return;
  }
}

void DocumentScanner::EndEventArray() {
  state_ = top_level_array_ ? State::kDone : State::kAfterMember;
}

const char* DocumentScanner::ScanValue(const char* p, const char* end, const char* data,
                                       std::uint64_t offset, ScanSink& sink) {
  const auto at = [&](const char* q) { return offset + static_cast<std::uint64_t>(q - data); };
  if (scalar_) {
    while (p < end) {
      const char c = *p;
      if (c == ',' || c == '}' || c == ']' || IsSpace(c)) {
        EndValue(at(p), sink);
        return p;
      }
      if (IsStructural(c)) Fail(at(p), "unexpected " + Describe(c) + " inside a number");
      ++p;
    }
    return end;
  }
  while (p < end) {
    if (in_string_) {
      if (escape_pending_) {
        escape_pending_ = false;
        ++p;
        continue;
      }
      p = json_scan::FindQuoteOrBackslash(p, end);
      if (p == end) return end;
      if (*p == '\\') {
        escape_pending_ = true;
        ++p;
        continue;
      }
      in_string_ = false;
      ++p;
      if (depth_ == 0) {  // the value was a string
        EndValue(at(p), sink);
        return p;
      }
      continue;
    }
    p = FindStructural(p, end);
    if (p == end) return end;
    switch (*p++) {
      case '"':
        in_string_ = true;
        break;
      case '{':
      case '[':
        ++depth_;
        break;
      default:  // '}' or ']': brackets are matched when the event itself is parsed
        if (--depth_ == 0) {
          EndValue(at(p), sink);
          return p;
        }
        break;
    }
  }
  return end;
}

void DocumentScanner::Scan(const char* data, std::uint64_t offset, std::uint64_t size,
                           ScanSink& sink) {
  if (offset > position_) Fail(position_, "internal: a block skipped bytes");
  const char* p = data + (position_ - offset);
  const char* end = data + size;
  const auto at = [&](const char* q) { return offset + static_cast<std::uint64_t>(q - data); };
  while (p < end) {
    if (state_ == State::kInValue) {
      p = ScanValue(p, end, data, offset, sink);
      continue;
    }
    if (state_ == State::kKeyText) {
      // Member names are short; they are copied as found (escapes kept), which is enough to
      // recognise the few that matter.
      while (p < end) {
        const char c = *p++;
        if (escape_pending_) {
          escape_pending_ = false;
        } else if (c == '\\') {
          escape_pending_ = true;
        } else if (c == '"') {
          state_ = State::kColon;
          break;
        }
        if (key_.size() < 256) key_ += c;
      }
      continue;
    }
    const char c = *p;
    if (IsSpace(c)) {
      ++p;
      continue;
    }
    switch (state_) {
      case State::kStart:
        if (at(p) == 0 && end - p >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
          p += 3;  // a UTF-8 byte order mark
          continue;
        }
        if (c == '{') {
          state_ = State::kKey;
        } else if (c == '[') {
          top_level_array_ = true;
          found_events_ = true;
          state_ = State::kEventsNext;
        } else {
          Fail(at(p), "not a JSON trace: it starts with " + Describe(c) +
                          " (a torch.profiler trace is a JSON object or array)");
        }
        ++p;
        break;
      case State::kKey:
        if (c == '"') {
          key_.clear();
          escape_pending_ = false;
          state_ = State::kKeyText;
        } else if (c == '}') {
          state_ = State::kDone;
        } else {
          Fail(at(p), "expected a member name, found " + Describe(c));
        }
        ++p;
        break;
      case State::kColon:
        if (c != ':') Fail(at(p), "expected ':' after \"" + key_ + "\", found " + Describe(c));
        state_ = State::kMemberValue;
        ++p;
        break;
      case State::kMemberValue:
        if (key_ == "traceEvents") {
          if (c != '[') Fail(at(p), "\"traceEvents\" is not an array");
          found_events_ = true;
          state_ = State::kEventsNext;
          ++p;
        } else {
          p = BeginValue(p, at(p),
                         IsKeptMember(key_) ? ValueRole::kKeptMember : ValueRole::kSkippedMember);
        }
        break;
      case State::kAfterMember:
        if (c == ',') {
          state_ = State::kKey;
        } else if (c == '}') {
          state_ = State::kDone;
        } else {
          Fail(at(p), "expected ',' or '}' after the value of \"" + key_ + "\", found " +
                          Describe(c));
        }
        ++p;
        break;
      case State::kEventsNext:
        if (c == ']') {  // the array's end (after a trailing comma too: harmless)
          EndEventArray();
          ++p;
        } else if (const char* after = c == '{' ? sink.EventAt(p, end) : nullptr) {
          if (static_cast<std::uint64_t>(after - p) > max_event_bytes_) FailTooLarge(at(p));
          state_ = State::kAfterEvent;
          p = after;
        } else {
          p = BeginValue(p, at(p), c == '{' ? ValueRole::kEvent : ValueRole::kNotAnEvent);
        }
        break;
      case State::kAfterEvent:
        if (c == ',') {
          state_ = State::kEventsNext;
        } else if (c == ']') {
          EndEventArray();
        } else {
          Fail(at(p), "expected ',' or ']' after an event, found " + Describe(c));
        }
        ++p;
        break;
      case State::kDone:
        Fail(at(p), "unexpected " + Describe(c) + " after the end of the trace");
      case State::kInValue:
      case State::kKeyText:
        break;  // handled above
    }
  }
  position_ = offset + size;
  // A kept member too large to hold is skipped instead: its text would stay in memory.
  if (state_ == State::kInValue && role_ == ValueRole::kKeptMember &&
      position_ - value_begin_ > kMaxKeptMemberBytes) {
    role_ = ValueRole::kSkippedMember;
  }
  if (position_ - RetainFrom() > max_event_bytes_) FailTooLarge(RetainFrom());
}

void DocumentScanner::Finish(ScanSink& sink) {
  switch (state_) {
    case State::kDone:
      if (!found_events_) Fail(position_, kNoEvents);
      return;
    case State::kStart:
      Fail(position_, "the file is empty");
    case State::kEventsNext:
    case State::kAfterEvent:
      truncated_ = true;
      return;
    case State::kInValue:
      if (role_ == ValueRole::kEvent || role_ == ValueRole::kNotAnEvent) {
        if (scalar_ && role_ == ValueRole::kNotAnEvent) {
          EndValue(position_, sink);
        } else {
          sink.Skipped(value_begin_, "the file ends inside this event");
        }
        truncated_ = true;
        return;
      }
      break;
    default:
      break;
  }
  if (!found_events_) Fail(position_, kNoEvents);
  truncated_ = true;  // the events were read; a member after them was cut off
}

}  // namespace advisor
