#include "engine/json_input/json_document.h"

#include <algorithm>
#include <vector>

#include "engine/json_input/json_field.h"
#include "engine/json_input/json_input_error.h"
#include "engine/json_input/json_limits.h"
#include "engine/util/input_file.h"

namespace advisor {
namespace {

using nlohmann::json;

// Thrown by PathTracker where the document nests deeper than kMaxJsonDepth.
struct TooDeep {};

// The deepest nesting of brackets outside strings: a scan far cheaper than a parse that tracks
// its levels (nlohmann's callback parser costs a quarter more on a window of tens of MB).
std::size_t NestingDepth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Where the parser is: the containers it is inside and, in each, the key or the element index,
// so that an error inside a value can name the field. Only a document already refused is parsed
// with it, to name the field.
class PathTracker {
 public:
  bool OnEvent(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (levels_.size() == kMaxJsonDepth) throw TooDeep();
        levels_.push_back({event == json::parse_event_t::array_start, 0, ""});
        break;
      case json::parse_event_t::key:
        levels_.back().key = parsed.get_ref<const std::string&>();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        levels_.pop_back();
        CountElement();
        break;
      case json::parse_event_t::value:
        CountElement();
        break;
    }
    return true;
  }

  // "optimizer.lr", "inputs[0].shape[2]"; "" outside every container.
  std::string Path() const {
    std::string path;
    for (const Level& level : levels_) {
      if (level.array) {
        path += "[" + std::to_string(level.index) + "]";
      } else if (!level.key.empty()) {
        path += (path.empty() ? "" : ".") + level.key;
      }
    }
    return path;
  }

 private:
  struct Level {
    bool array;
    std::size_t index;  // arrays: the elements read so far, so the index of the one being read
    std::string key;    // objects: the key of the value being read
  };

  void CountElement() {
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
  }

  std::vector<Level> levels_;
};

// nlohmann's messages open with their exception id ("[json.exception.parse_error.101] "); the
// rest says where and what, on one line.
std::string MessageOf(const json::exception& error) {
  std::string message = error.what();
  if (message.rfind("[json.exception.", 0) == 0) message = message.substr(message.find("] ") + 2);
  return message.substr(0, message.find('\n'));
}

// The number in "number overflow parsing '1e400'".
std::string OverflowingNumber(const std::string& message) {
  const std::size_t open = message.find('\'');
  const std::size_t close = message.rfind('\'');
  return open < close ? message.substr(open + 1, close - open - 1) : message;
}

// The error of a document refused for its depth or a number no double holds: parsed again, with
// the path tracked, up to the same point.
[[noreturn]] void ThrowNamingTheField(std::string_view text, const std::string& source) {
  PathTracker tracker;
  try {
    const json parsed = json::parse(text.begin(), text.end(),
                                    [&tracker](int, json::parse_event_t event, json& value) {
                                      return tracker.OnEvent(event, value);
                                    });
  } catch (const TooDeep&) {
    throw JsonInputError(source + ": " + FieldName(tracker.Path()) + " is nested deeper than " +
                         std::to_string(kMaxJsonDepth) + " levels");
  } catch (const json::out_of_range& error) {  // the only one: a number beyond double (406)
    throw JsonInputError(source + ": " + FieldName(tracker.Path()) +
                         " must be a number a double can hold, got " +
                         OverflowingNumber(MessageOf(error)));
  } catch (const json::exception& error) {  // a syntax error before the brackets' depth
    throw JsonInputError(source + ": not valid JSON: " + MessageOf(error));
  }
  throw JsonInputError(source + ": not valid JSON");  // unreachable: the scan found the depth
}

}  // namespace

json ParseJsonDocument(std::string_view text, const std::string& source) {
  if (NestingDepth(text) > kMaxJsonDepth) ThrowNamingTheField(text, source);
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::out_of_range&) {
    ThrowNamingTheField(text, source);
  } catch (const json::exception& error) {
    throw JsonInputError(source + ": not valid JSON: " + MessageOf(error));
  }
}

void CheckJsonSize(const std::string& source, std::uintmax_t size, std::uintmax_t max_bytes) {
  if (size > max_bytes) {
    throw JsonInputError(source + ": " + std::to_string(size) + " bytes is too large (at most " +
                         std::to_string(max_bytes) + ")");
  }
}

std::string ReadJsonFile(const std::string& path, std::uintmax_t max_bytes) {
  try {
    return ReadInputFile(path, max_bytes);
  } catch (const InputFileError& error) {
    throw JsonInputError(error.what());
  }
}

}  // namespace advisor
