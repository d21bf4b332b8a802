// An op's name ("aten::gather", "GatherBackward0") interned: four bytes an op instead of a
// std::string's 32 and its copy.
//
// A window names its few hundred kinds of op millions of times (a 257 MB legacy trace: 2.35 M
// ops, a std::string each, 1.95x the file in peak memory: docs/benchmarks.md). Each distinct name
// is stored once, in one table for the process; an OpName is its index there. One table, not one a
// timeline, because ops travel between timelines (ranks merged, windows decoded) and the
// functions that read a name mostly see the op alone. The table only grows: names are few, and
// a name read by its id needs no lock. It is bounded (a million names, 64 MiB of their text):
// past that, as in a long fuzz campaign of made-up names, a new name is interned as kTableFull.
//
// An OpName compares and hashes as its id does and orders as its string does (a std::map of them
// iterates as one of strings would, so the reports list ops in the order they always have);
// str() is its text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace advisor {

class OpName {
 public:
  OpName() = default;  // ""
  // Interns `name` (the first time it is seen, under a lock). Implicit, as std::string's from a
  // literal is; a loop that compares with a constant compares with its text (operator== below),
  // which interns nothing.
  OpName(std::string_view name);
  OpName(const std::string& name) : OpName(std::string_view(name)) {}
  OpName(const char* name) : OpName(std::string_view(name)) {}

  // What a name first seen once the table is full is interned as.
  static const char* const kTableFull;

  const std::string& str() const;
  bool empty() const { return id_ == 0; }
  // Dense from 0 ("") in the order names were first interned in this process: a table keyed by
  // op name can be a vector indexed by id.
  std::uint32_t id() const { return id_; }

  friend bool operator==(OpName a, OpName b) { return a.id_ == b.id_; }
  friend bool operator!=(OpName a, OpName b) { return a.id_ != b.id_; }
  friend bool operator==(OpName a, std::string_view b) { return a.str() == b; }
  friend bool operator!=(OpName a, std::string_view b) { return a.str() != b; }
  friend bool operator==(OpName a, const std::string& b) { return a.str() == b; }
  friend bool operator!=(OpName a, const std::string& b) { return a.str() != b; }
  friend bool operator==(OpName a, const char* b) { return a.str() == b; }
  friend bool operator!=(OpName a, const char* b) { return a.str() != b; }
  friend bool operator<(OpName a, OpName b) { return a.id_ != b.id_ && a.str() < b.str(); }
  friend std::ostream& operator<<(std::ostream& out, OpName name);

 private:
  std::uint32_t id_ = 0;
};

}  // namespace advisor

namespace std {
template <>
struct hash<advisor::OpName> {
  std::size_t operator()(advisor::OpName name) const noexcept { return name.id(); }
};
}  // namespace std
