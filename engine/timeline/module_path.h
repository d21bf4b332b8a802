// A module instance path ("blocks.5.mlp") stored as its last component and its parent's path.
//
// A trace's module ranges nest as deep as its writer likes, and each range's path spells all of
// its parents': as whole strings, N nested ranges cost O(N^2) bytes (issue #34: 4,000 took 637 MB),
// and every op placed in a module copied its path once more (128 levels of 1,000-byte names
// around 10,000 ops: 1.5 GB from a 1 MB trace). A path made by Child() shares its parent's
// nodes, so a chain of N nested ranges costs N nodes, and a copy is a reference count.
//
// A ModulePath compares, orders and hashes as its dotted string does (a std::map of them
// iterates as one of strings would); str() spells it out where a person or a reader needs it,
// and Shown() within a bound, as the reports write it.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace advisor {

class ModulePath {
 public:
  // "": no module, the ancestor of every path.
  ModulePath() = default;
  // The path a dotted string spells, one component per '.'-separated part; "" is no module.
  // Implicit, as std::string's from a literal is; it makes a node per component, so a loop
  // converts once, before it starts.
  ModulePath(std::string_view dotted);
  ModulePath(const std::string& dotted) : ModulePath(std::string_view(dotted)) {}
  ModulePath(const char* dotted) : ModulePath(std::string_view(dotted)) {}

  // This path, then `dotted`'s components: str() is str() + "." + dotted ("" + "." is left out
  // below no module). The new nodes refer to this path's; nothing of it is copied.
  ModulePath Child(std::string_view dotted) const;
  // The path one component up; "" for a path of one component and for "".
  ModulePath Parent() const;

  bool empty() const { return node_ == nullptr; }
  std::size_t Depth() const;  // components; 0 for ""
  std::size_t Size() const;   // bytes of str()
  std::string str() const;
  // Whether `text` begins with str() followed by '.', compared without spelling the path out.
  bool PrefixesDotted(std::string_view text) const;

  // At most kShownBytes: str() where it fits, else its first and its last components, each end
  // within half the bound, around "…(N levels)…", N the levels not shown whole (a first or last
  // component too long for its half is shown by its start, cut before a UTF-8 character). What
  // reports write: a trace can nest ranges of 1,000-byte names 128 deep, and report.json spelt
  // each path whole (8.4 MB from a 141 KB trace).
  static constexpr std::size_t kShownBytes = 512;
  std::string Shown() const;

  std::size_t Hash() const;  // of the dotted string

  friend bool operator==(const ModulePath& a, const ModulePath& b);
  friend bool operator!=(const ModulePath& a, const ModulePath& b) { return !(a == b); }
  friend bool operator<(const ModulePath& a, const ModulePath& b);  // as their strings
  friend std::ostream& operator<<(std::ostream& out, const ModulePath& path);
  friend bool IsSameOrDescendant(const ModulePath& path, const ModulePath& ancestor);

 private:
  struct Node;
  explicit ModulePath(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  static bool SamePath(const Node* x, const Node* y);

  std::shared_ptr<const Node> node_;  // the last component; null for ""
};

// `path` is `ancestor` or inside it ("a.b" is inside "a", "ab" is not); every path is inside "".
bool IsSameOrDescendant(const ModulePath& path, const ModulePath& ancestor);

// Each dotted string's ModulePath made once: the markers of one module, which a probe records by
// its dotted name, share one path.
class ModulePathsByName {
 public:
  const ModulePath& Of(const std::string& dotted) {
    return made_.try_emplace(dotted, dotted).first->second;
  }

 private:
  std::unordered_map<std::string, ModulePath> made_;
};

}  // namespace advisor

namespace std {
template <>
struct hash<advisor::ModulePath> {
  std::size_t operator()(const advisor::ModulePath& path) const noexcept { return path.Hash(); }
};
}  // namespace std
