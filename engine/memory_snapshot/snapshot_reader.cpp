#include "engine/memory_snapshot/snapshot_reader.h"

#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "engine/pickle_input/pickle_reader.h"

namespace advisor {
namespace {

// Where a value sits, spelt only when an error names it: "device_traces[0]" + [12] + ".size".
struct Where {
  const std::string& base;
  std::int64_t index = -1;  // -1: the base itself is the container
  std::string_view key;

  std::string Spell() const {
    std::string text = base;
    if (index >= 0) text += "[" + std::to_string(index) + "]";
    if (!key.empty()) text += (text.empty() ? "" : ".") + std::string(key);
    return text;
  }
};

TraceAction ActionNamed(std::string_view name) {
  static const std::pair<std::string_view, TraceAction> kActions[] = {
      {"alloc", TraceAction::kAlloc},
      {"free_requested", TraceAction::kFreeRequested},
      {"free_completed", TraceAction::kFreeCompleted},
      {"segment_alloc", TraceAction::kSegmentAlloc},
      {"segment_free", TraceAction::kSegmentFree},
      {"segment_map", TraceAction::kSegmentMap},
      {"segment_unmap", TraceAction::kSegmentUnmap},
      {"snapshot", TraceAction::kSnapshot},
      {"oom", TraceAction::kOom}};
  for (const auto& [text, action] : kActions) {
    if (name == text) return action;
  }
  return TraceAction::kOther;
}

class SnapshotReader {
 public:
  SnapshotReader(const PickleDocument& document, MemorySnapshot& out)
      : document_(document), out_(out) {
    out_.stacks.emplace_back();  // StackId 0: no frames
    stack_ids_.emplace(out_.stacks.front(), 0);
  }

  void Read() {
    const PickleValue& root = document_.root();
    if (root.kind != PickleKind::kDict) {
      Fail(std::string("not a memory snapshot: the pickle holds a ") + PickleKindName(root.kind) +
           ", not the dict torch.cuda.memory._dump_snapshot writes");
    }
    const std::string top;
    ReadSegments(Required(root, {top, -1, "segments"}, PickleKind::kList));
    ReadTraces(Required(root, {top, -1, "device_traces"}, PickleKind::kList));
    if (const PickleValue* annotations = document_.Find(root, "external_annotations")) {
      ReadAnnotations(Expect(*annotations, {top, -1, "external_annotations"}, PickleKind::kList));
    }
  }

 private:
  [[noreturn]] void Fail(const std::string& problem) const {
    throw SnapshotError(out_.path + ": " + problem);
  }

  [[noreturn]] void WrongKind(const PickleValue& value, const Where& where,
                              const char* expected) const {
    Fail("'" + where.Spell() + "' must be " + expected + ", got " + PickleKindName(value.kind));
  }

  const PickleValue& Expect(const PickleValue& value, const Where& where, PickleKind kind) const {
    if (value.kind != kind) {
      WrongKind(value, where, kind == PickleKind::kDict ? "a dict" : "a list");
    }
    return value;
  }

  const PickleValue& Required(const PickleValue& dict, const Where& where, PickleKind kind) const {
    const PickleValue* value = document_.Find(dict, where.key);
    if (value == nullptr) {
      Fail("'" + where.Spell() + "' is missing" +
           (where.base.empty() ? ": not a torch.cuda.memory._dump_snapshot file" : ""));
    }
    return Expect(*value, where, kind);
  }

  std::int64_t Int(const PickleValue& value, const Where& where) const {
    if (value.kind != PickleKind::kInt) WrongKind(value, where, "an int");
    return value.integer;
  }

  // Sizes and addresses: no device holds 2^50 bytes (1 PiB), and sums of sizes below that stay
  // far from overflowing (snapshot_replay.cpp still checks them).
  std::int64_t Size(const PickleValue& value, const Where& where) const {
    constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;
    const std::int64_t size = Int(value, where);
    if (size < 0) Fail("'" + where.Spell() + "' must be >= 0, got " + std::to_string(size));
    if (size > kMaxBytes && where.key != "addr" && where.key != "address") {
      Fail("'" + where.Spell() + "' must be at most 2^50 bytes, got " + std::to_string(size));
    }
    return size;
  }

  std::string_view Text(const PickleValue& value, const Where& where) const {
    if (value.kind != PickleKind::kString) WrongKind(value, where, "a str");
    return document_.Text(value);
  }

  void ReadSegments(const PickleValue& segments) {
    const std::string base = "segments";
    std::int64_t index = 0;
    document_.ForEachItem(segments, [&](const PickleValue& item) {
      const Where where{base, index++, {}};
      const std::string name = where.Spell();
      Expect(item, where, PickleKind::kDict);
      SnapshotSegment segment;
      segment.device = IntMember(item, name, "device");
      segment.address = static_cast<std::uint64_t>(SizeMember(item, name, "address"));
      segment.total_size = SizeMember(item, name, "total_size");
      if (const PickleValue* expandable = document_.Find(item, "is_expandable")) {
        segment.expandable = expandable->kind == PickleKind::kBool && expandable->boolean;
      }
      const std::string blocks_name = name + ".blocks";
      std::uint64_t next_address = segment.address;  // torch 2.0: blocks follow each other
      std::int64_t block_index = 0;
      document_.ForEachItem(
          Required(item, {name, -1, "blocks"}, PickleKind::kList), [&](const PickleValue& entry) {
            const Where at{blocks_name, block_index++, {}};
            const std::string block_name = at.Spell();
            Expect(entry, at, PickleKind::kDict);
            SnapshotBlock block;
            block.size = SizeMember(entry, block_name, "size");
            const PickleValue* address = document_.Find(entry, "address");
            block.address =
                address ? static_cast<std::uint64_t>(Size(*address, {block_name, -1, "address"}))
                        : next_address;
            next_address = block.address + static_cast<std::uint64_t>(block.size);
            const PickleValue* requested = document_.Find(entry, "requested_size");
            block.requested_size =
                requested ? Size(*requested, {block_name, -1, "requested_size"}) : block.size;
            const std::string_view state = TextMember(entry, block_name, "state");
            block.state = state == "active_allocated"      ? BlockState::kActiveAllocated
                          : state == "active_pending_free" ? BlockState::kActivePendingFree
                                                           : BlockState::kInactive;
            if (const PickleValue* frames = document_.Find(entry, "frames")) {
              block.stack = Stack(*frames, {block_name, -1, "frames"});
            }
            segment.blocks.push_back(block);
          });
      out_.segments.push_back(std::move(segment));
    });
  }

  // A required member of `dict`, of any kind.
  const PickleValue& Member(const PickleValue& dict, const std::string& name,
                            std::string_view key) const {
    const PickleValue* value = document_.Find(dict, key);
    if (value == nullptr) Fail("'" + name + "." + std::string(key) + "' is missing");
    return *value;
  }

  std::int64_t IntMember(const PickleValue& dict, const std::string& name, std::string_view key) {
    return Int(Member(dict, name, key), {name, -1, key});
  }
  std::int64_t SizeMember(const PickleValue& dict, const std::string& name, std::string_view key) {
    return Size(Member(dict, name, key), {name, -1, key});
  }
  std::string_view TextMember(const PickleValue& dict, const std::string& name,
                              std::string_view key) {
    return Text(Member(dict, name, key), {name, -1, key});
  }

  void ReadTraces(const PickleValue& traces) {
    const std::string base = "device_traces";
    std::int64_t device = 0;
    document_.ForEachItem(traces, [&](const PickleValue& trace) {
      const std::string name = Where{base, device++, {}}.Spell();
      Expect(trace, {name, -1, {}}, PickleKind::kList);
      std::vector<TraceEntry> entries;
      entries.reserve(document_.Size(trace));
      std::int64_t index = 0;
      document_.ForEachItem(
          trace, [&](const PickleValue& item) { entries.push_back(Entry(item, name, index++)); });
      out_.device_traces.push_back(std::move(entries));
    });
  }

  // One trace entry in one pass over its keys: a 1M-entry history has 6 million of them.
  TraceEntry Entry(const PickleValue& item, const std::string& trace, std::int64_t index) {
    if (item.kind != PickleKind::kDict) WrongKind(item, {trace, index, {}}, "a dict");
    TraceEntry entry;
    bool has_action = false, has_size = false, has_addr = false, has_time = false;
    document_.ForEachEntry(item, [&](const PickleValue& key, const PickleValue& value) {
      const std::string_view name = document_.Text(key);
      if (name == "action") {
        entry.action = ActionNamed(Text(value, {trace, index, name}));
        has_action = true;
      } else if (name == "addr" || name == "device_free") {
        entry.addr = static_cast<std::uint64_t>(Size(value, {trace, index, name}));
        has_addr = true;
      } else if (name == "size") {
        entry.size = Size(value, {trace, index, name});
        has_size = true;
      } else if (name == "time_us") {
        entry.time_us = Int(value, {trace, index, name});
        has_time = true;
      } else if (name == "frames") {
        entry.stack = Stack(value, {trace, index, name});
      }
    });
    const auto missing = [&](const char* key) {
      Fail("'" + Where{trace, index, key}.Spell() + "' is missing");
    };
    if (!has_action) missing("action");
    if (!has_size) missing("size");
    if (!has_addr) missing(entry.action == TraceAction::kOom ? "device_free" : "addr");
    if (!has_time) out_.timed = false;
    if (entry.action == TraceAction::kOther) ++out_.other_actions;
    return entry;
  }

  // The frames list's StackId. torch shares one list between the entries of one traceback, so
  // the list's identity is looked up first; its contents are interned too, for files that do not
  // share.
  StackId Stack(const PickleValue& frames, const Where& where) {
    if (frames.kind == PickleKind::kNone) return 0;
    Expect(frames, where, PickleKind::kList);
    if (const auto known = stack_of_list_.find(frames.container); known != stack_of_list_.end()) {
      return known->second;
    }
    const std::string name = where.Spell();
    std::vector<std::uint32_t> stack;
    std::int64_t index = 0;
    document_.ForEachItem(frames, [&](const PickleValue& frame) {
      stack.push_back(Frame(frame, {name, index++, {}}));
    });
    const auto [interned, added] =
        stack_ids_.emplace(stack, static_cast<StackId>(out_.stacks.size()));
    if (added) out_.stacks.push_back(std::move(stack));
    stack_of_list_.emplace(frames.container, interned->second);
    return interned->second;
  }

  std::uint32_t Frame(const PickleValue& frame, const Where& where) {
    Expect(frame, where, PickleKind::kDict);
    if (const auto known = frame_of_dict_.find(frame.container); known != frame_of_dict_.end()) {
      return known->second;
    }
    const std::string name = where.Spell();
    SnapshotFrame parsed;
    parsed.filename = std::string(TextMember(frame, name, "filename"));
    parsed.line = IntMember(frame, name, "line");
    parsed.name = std::string(TextMember(frame, name, "name"));
    auto key = std::make_tuple(parsed.filename, parsed.line, parsed.name);
    const auto [interned, added] =
        frame_ids_.emplace(std::move(key), static_cast<std::uint32_t>(out_.frames.size()));
    if (added) out_.frames.push_back(std::move(parsed));
    frame_of_dict_.emplace(frame.container, interned->second);
    return interned->second;
  }

  void ReadAnnotations(const PickleValue& annotations) {
    const std::string base = "external_annotations";
    std::int64_t index = 0;
    document_.ForEachItem(annotations, [&](const PickleValue& item) {
      const std::string name = Where{base, index++, {}}.Spell();
      Expect(item, {name, -1, {}}, PickleKind::kDict);
      SnapshotAnnotation annotation;
      annotation.name = std::string(TextMember(item, name, "name"));
      const std::string_view stage = TextMember(item, name, "stage");
      if (stage != "START" && stage != "END") {
        Fail("'" + name + ".stage' must be \"START\" or \"END\", got \"" + std::string(stage) +
             "\"");
      }
      annotation.start = stage == "START";
      annotation.time_us = IntMember(item, name, "time_us");
      if (const PickleValue* device = document_.Find(item, "device")) {
        annotation.device = Int(*device, {name, -1, "device"});
      }
      out_.annotations.push_back(std::move(annotation));
    });
  }

  struct StackHash {
    std::size_t operator()(const std::vector<std::uint32_t>& stack) const {
      std::size_t hash = stack.size();
      for (std::uint32_t frame : stack) hash = hash * 1000003u ^ frame;
      return hash;
    }
  };

  const PickleDocument& document_;
  MemorySnapshot& out_;
  std::unordered_map<std::uint32_t, StackId> stack_of_list_;
  std::unordered_map<std::vector<std::uint32_t>, StackId, StackHash> stack_ids_;
  std::unordered_map<std::uint32_t, std::uint32_t> frame_of_dict_;
  std::map<std::tuple<std::string, std::int64_t, std::string>, std::uint32_t> frame_ids_;
};

}  // namespace

MemorySnapshot SnapshotOfDocument(const PickleDocument& document, const std::string& path) {
  MemorySnapshot snapshot;
  snapshot.path = path;
  SnapshotReader(document, snapshot).Read();
  return snapshot;
}

MemorySnapshot ReadMemorySnapshot(const std::string& path, const PickleLimits& limits) {
  return SnapshotOfDocument(ReadPickleFile(path, limits), path);
}

bool IsSnapshotFileName(const std::string& name) {
  const auto ends_with = [&](std::string_view suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".pickle") || ends_with(".pkl");
}

}  // namespace advisor
