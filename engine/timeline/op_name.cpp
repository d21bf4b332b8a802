#include "engine/timeline/op_name.h"

#include <memory>
#include <mutex>
#include <ostream>
#include <unordered_map>
#include <utility>

namespace advisor {
namespace {

// Names are never freed, and a long fuzz campaign reads millions of made-up ones: past these
// bounds (far beyond any model's few thousand kinds of op) a new name is interned as kTableFull.
constexpr std::uint32_t kMostNames = 1u << 20;
constexpr std::size_t kMostBytes = std::size_t{64} << 20;

// The names by id, in blocks that never move once made: str() reads one without a lock, since
// whoever holds an id got it after its name was stored (through whatever handed it the op).
// Block k holds ids 2^k - 1 to 2^(k+1) - 2: 32 blocks hold every 32-bit id, each made when the
// first of its ids is, so the table is never much larger than its names.
class NameTable {
 public:
  NameTable() {
    Intern("");  // id 0
    full_id_ = Intern(OpName::kTableFull);
  }

  std::uint32_t Intern(std::string_view name) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = ids_.find(name);
    if (found != ids_.end()) return found->second;
    if (count_ >= kMostNames || bytes_ + name.size() > kMostBytes) return full_id_;
    bytes_ += name.size();
    const std::uint32_t id = count_;
    const auto [block, slot] = SlotOf(id);
    if (slot == 0) blocks_[block] = std::make_unique<std::string[]>(std::size_t{1} << block);
    std::string& stored = blocks_[block][slot];
    stored = name;
    ids_.emplace(stored, id);  // a view of the stored text, which never moves
    count_ = id + 1;
    return id;
  }

  const std::string& Name(std::uint32_t id) const {
    const auto [block, slot] = SlotOf(id);
    return blocks_[block][slot];
  }

 private:
  // The block of `id` and its place there.
  static std::pair<unsigned, std::size_t> SlotOf(std::uint32_t id) {
    const std::uint64_t position = std::uint64_t{id} + 1;
    const auto block = static_cast<unsigned>(63 - __builtin_clzll(position));  // GCC and clang
    return {block, static_cast<std::size_t>(position - (std::uint64_t{1} << block))};
  }

  std::mutex mutex_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
  std::uint32_t count_ = 0;
  std::size_t bytes_ = 0;  // of the names' text
  std::uint32_t full_id_ = 0;
  std::unique_ptr<std::string[]> blocks_[33];
};

// Never destroyed: ops may be read by other static objects' destructors at exit.
NameTable& Table() {
  static NameTable* table = new NameTable;
  return *table;
}

}  // namespace

OpName::OpName(std::string_view name) : id_(name.empty() ? 0 : Table().Intern(name)) {}

const std::string& OpName::str() const { return Table().Name(id_); }

const char* const OpName::kTableFull = "<op name table full>";

std::ostream& operator<<(std::ostream& out, OpName name) { return out << name.str(); }

}  // namespace advisor
