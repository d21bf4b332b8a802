// A pickle of plain containers, numbers and strings, as the plain-pickle reader built it
// (pickle_reader.h). The document is flat: values are 16-byte handles, strings point into the
// file's bytes, and a container's items live in one shared array in the chunks its APPENDS and
// SETITEMS added. Nothing here recurses, so no nesting, sharing or cycle a pickle can express
// (Python pickles shared and self-containing objects through its memo) makes a walk or a
// destructor deep; readers of a format follow its fixed layout (engine/memory_snapshot).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace advisor {

enum class PickleKind : std::uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kBytes,
  kList,
  kTuple,
  kDict
};

// "None", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict": Python's names.
const char* PickleKindName(PickleKind kind);

struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  std::uint32_t length = 0;  // kString, kBytes: bytes of text
  union {
    bool boolean;
    std::int64_t integer;
    double real;
    std::uint64_t offset;     // kString, kBytes: where the text starts in the file
    std::uint32_t container;  // kList, kTuple, kDict
  };
  PickleValue() : integer(0) {}
};

class PickleDocument {
 public:
  const PickleValue& root() const { return root_; }

  // The bytes of a str (UTF-8, as Python writes it) or bytes value; empty for any other kind.
  std::string_view Text(const PickleValue& value) const;
  bool IsText(const PickleValue& value, std::string_view text) const {
    return value.kind == PickleKind::kString && value.length == text.size() && Text(value) == text;
  }

  // Items of a list or tuple; entries of a dict (pairs).
  std::uint64_t Size(const PickleValue& container) const;

  // f(item) for each item of a list or tuple, in order.
  template <typename F>
  void ForEachItem(const PickleValue& sequence, F&& f) const {
    ForEachChunk(sequence, [&](const PickleValue* items, std::uint32_t count) {
      for (std::uint32_t i = 0; i < count; ++i) f(items[i]);
    });
  }

  // f(key, value) for each entry of a dict in the order it was set; a key set twice comes twice,
  // the later one being Python's value.
  template <typename F>
  void ForEachEntry(const PickleValue& dict, F&& f) const {
    ForEachChunk(dict, [&](const PickleValue* items, std::uint32_t count) {
      for (std::uint32_t i = 0; i + 1 < count; i += 2) f(items[i], items[i + 1]);
    });
  }

  // The value of the str key `key` in `dict` (the last one set), or nullptr.
  const PickleValue* Find(const PickleValue& dict, std::string_view key) const;

 private:
  friend class PickleBuilder;

  static constexpr std::uint32_t kNoChunk = UINT32_MAX;
  struct Chunk {
    std::uint32_t begin = 0;  // into items_
    std::uint32_t count = 0;
    std::uint32_t next = kNoChunk;
  };
  struct Container {
    PickleKind kind = PickleKind::kList;
    std::uint32_t first = kNoChunk;
    std::uint32_t last = kNoChunk;
    std::uint64_t items = 0;  // values in its chunks: a dict's keys and values both
  };

  template <typename F>
  void ForEachChunk(const PickleValue& container, F&& f) const {
    if (container.kind != PickleKind::kList && container.kind != PickleKind::kTuple &&
        container.kind != PickleKind::kDict) {
      return;
    }
    for (std::uint32_t chunk = containers_[container.container].first; chunk != kNoChunk;
         chunk = chunks_[chunk].next) {
      f(items_.data() + chunks_[chunk].begin, chunks_[chunk].count);
    }
  }

  std::string bytes_;  // the file
  PickleValue root_;
  std::vector<Container> containers_;
  std::vector<Chunk> chunks_;
  std::vector<PickleValue> items_;
};

}  // namespace advisor
