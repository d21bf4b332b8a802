#include "engine/workload/json_document.h"

#include <vector>

#include "engine/workload/workload_spec.h"

namespace advisor {
namespace {

using nlohmann::json;

// Where the parser is: the containers it is inside and, in each, the key or the element index.
class PathTracker {
 public:
  bool OnEvent(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        levels_.push_back({false, 0, ""});
        break;
      case json::parse_event_t::array_start:
        levels_.push_back({true, 0, ""});
        break;
      case json::parse_event_t::key:
        levels_.back().key = parsed.get<std::string>();
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

  // "optimizer.lr", "inputs[0].shape[2]"; "top level" outside every container.
  std::string Path() const {
    std::string path;
    for (const Level& level : levels_) {
      if (level.array) {
        path += "[" + std::to_string(level.index) + "]";
      } else if (!level.key.empty()) {
        path += (path.empty() ? "" : ".") + level.key;
      }
    }
    return path.empty() ? "top level" : path;
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

}  // namespace

json ParseJsonDocument(const std::string& text, const std::string& source) {
  PathTracker tracker;
  try {
    return json::parse(text, [&tracker](int, json::parse_event_t event, json& parsed) {
      return tracker.OnEvent(event, parsed);
    });
  } catch (const json::parse_error& error) {
    throw WorkloadError(source + ": not valid JSON: " + MessageOf(error));
  } catch (const json::exception& error) {
    throw WorkloadError(source + ": " + tracker.Path() + ": " + MessageOf(error));
  }
}

}  // namespace advisor
