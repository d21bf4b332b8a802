#include "engine/pickle_input/pickle_document.h"

namespace advisor {

const char* PickleKindName(PickleKind kind) {
  switch (kind) {
    case PickleKind::kNone:
      return "None";
    case PickleKind::kBool:
      return "bool";
    case PickleKind::kInt:
      return "int";
    case PickleKind::kFloat:
      return "float";
    case PickleKind::kString:
      return "str";
    case PickleKind::kBytes:
      return "bytes";
    case PickleKind::kList:
      return "list";
    case PickleKind::kTuple:
      return "tuple";
    case PickleKind::kDict:
      return "dict";
  }
  return "None";
}

std::string_view PickleDocument::Text(const PickleValue& value) const {
  if (value.kind != PickleKind::kString && value.kind != PickleKind::kBytes) return {};
  return std::string_view(bytes_).substr(value.offset, value.length);
}

std::uint64_t PickleDocument::Size(const PickleValue& container) const {
  switch (container.kind) {
    case PickleKind::kList:
    case PickleKind::kTuple:
      return containers_[container.container].items;
    case PickleKind::kDict:
      return containers_[container.container].items / 2;
    default:
      return 0;
  }
}

const PickleValue* PickleDocument::Find(const PickleValue& dict, std::string_view key) const {
  const PickleValue* found = nullptr;
  ForEachEntry(dict, [&](const PickleValue& name, const PickleValue& value) {
    if (IsText(name, key)) found = &value;
  });
  return found;
}

}  // namespace advisor
