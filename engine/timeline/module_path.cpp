#include "engine/timeline/module_path.h"

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <vector>

namespace advisor {

struct ModulePath::Node {
  Node(std::shared_ptr<const Node> parent_node, std::string_view name);
  // Releases the parent chain one node at a time: a path parsed from a long dotted string has
  // as many nodes as it has dots, too many to release recursively on the stack.
  ~Node();

  std::shared_ptr<const Node> parent;  // null at the first component
  std::string component;               // holds no '.'
  std::size_t depth;                   // components, this one included
  std::size_t size;                    // bytes of the dotted path
  std::size_t hash;                    // FNV-1a of the dotted path
};

namespace {

constexpr std::uint64_t kFnvBasis = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t Fnv(std::uint64_t hash, std::string_view bytes) {
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * kFnvPrime;
  return hash;
}

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The first at most `max` bytes of `text`, ending before a whole UTF-8 character.
std::string_view FirstBytes(std::string_view text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = max;
  while (end > 0 && IsUtf8Continuation(text[end])) --end;
  return text.substr(0, end);
}

}  // namespace

ModulePath::Node::Node(std::shared_ptr<const Node> parent_node, std::string_view name)
    : parent(std::move(parent_node)), component(name) {
  depth = parent ? parent->depth + 1 : 1;
  size = parent ? parent->size + 1 + component.size() : component.size();
  hash = Fnv(parent ? Fnv(parent->hash, ".") : kFnvBasis, component);
}

ModulePath::Node::~Node() {
  std::shared_ptr<const Node> next = std::move(parent);
  // Holding a node's last reference, nobody else can take one: detach its parent before it goes.
  while (next && next.use_count() == 1) {
    std::shared_ptr<const Node> after = std::move(const_cast<Node&>(*next).parent);
    next = std::move(after);
  }
}

ModulePath::ModulePath(std::string_view dotted) : ModulePath(ModulePath().Child(dotted)) {}

ModulePath ModulePath::Child(std::string_view dotted) const {
  if (empty() && dotted.empty()) return *this;
  std::shared_ptr<const Node> node = node_;
  for (std::size_t begin = 0;;) {
    const std::size_t dot = dotted.find('.', begin);
    const std::size_t end = dot == std::string_view::npos ? dotted.size() : dot;
    node = std::make_shared<const Node>(std::move(node), dotted.substr(begin, end - begin));
    if (dot == std::string_view::npos) break;
    begin = dot + 1;
  }
  return ModulePath(std::move(node));
}

ModulePath ModulePath::Parent() const { return empty() ? *this : ModulePath(node_->parent); }

std::size_t ModulePath::Depth() const { return empty() ? 0 : node_->depth; }

std::size_t ModulePath::Size() const { return empty() ? 0 : node_->size; }

std::size_t ModulePath::Hash() const { return empty() ? kFnvBasis : node_->hash; }

std::string ModulePath::str() const {
  std::string dotted(Size(), '.');
  for (const Node* node = node_.get(); node != nullptr; node = node->parent.get()) {
    dotted.replace(node->size - node->component.size(), node->component.size(), node->component);
  }
  return dotted;
}

bool ModulePath::PrefixesDotted(std::string_view text) const {
  if (empty() || text.size() <= Size() || text[Size()] != '.') return false;
  for (const Node* node = node_.get(); node != nullptr; node = node->parent.get()) {
    const std::size_t begin = node->size - node->component.size();
    if (text.compare(begin, node->component.size(), node->component) != 0) return false;
    if (node->parent != nullptr && text[begin - 1] != '.') return false;
  }
  return true;
}

std::string ModulePath::Shown() const {
  if (Size() <= kShownBytes) return str();
  std::vector<std::string_view> parts(Depth());
  for (const Node* node = node_.get(); node != nullptr; node = node->parent.get()) {
    parts[node->depth - 1] = node->component;
  }
  // "…(N levels)…" and the dots beside it: the ellipses are 3 bytes each, N at most 20 digits.
  constexpr std::size_t kMarkBytes = 3 + 1 + 20 + 8 + 3 + 2;
  constexpr std::size_t kHalf = (kShownBytes - kMarkBytes) / 2;
  const std::size_t n = parts.size();
  std::string head, tail;
  std::size_t first = 0;  // parts[0, first) are shown whole at the start
  while (first < n && head.size() + (first > 0) + parts[first].size() <= kHalf) {
    if (first > 0) head += '.';
    head += parts[first++];
  }
  std::size_t last = n;  // parts[last, n) are shown whole at the end
  while (last > first && tail.size() + (last < n) + parts[last - 1].size() <= kHalf) {
    tail.insert(0, std::string(parts[--last]) + (tail.empty() ? "" : "."));
  }
  // A first or last component longer than its half is shown by its start.
  if (first == 0) head = FirstBytes(parts[0], kHalf);
  if (last == n && n > 1) tail = FirstBytes(parts[n - 1], kHalf);
  const std::size_t elided = last - first;
  return head + (first > 0 ? "." : "") + "…(" + std::to_string(elided) +
         (elided == 1 ? " level)…" : " levels)…") + (last < n ? "." : "") + tail;
}

bool ModulePath::SamePath(const Node* x, const Node* y) {
  if (x == y) return true;
  if (x == nullptr || y == nullptr || x->hash != y->hash || x->size != y->size ||
      x->depth != y->depth) {
    return false;
  }
  for (; x != y; x = x->parent.get(), y = y->parent.get()) {
    if (x->component != y->component) return false;
  }
  return true;
}

bool operator==(const ModulePath& a, const ModulePath& b) {
  return ModulePath::SamePath(a.node_.get(), b.node_.get());
}

bool operator<(const ModulePath& a, const ModulePath& b) {
  const ModulePath::Node* x = a.node_.get();
  const ModulePath::Node* y = b.node_.get();
  if (x == y || y == nullptr) return false;
  if (x == nullptr) return true;
  // At the same depth, the differing components nearest the root decide; none: the shorter path
  // is the other's start, and its string the other's prefix.
  while (x->depth > y->depth) x = x->parent.get();
  while (y->depth > x->depth) y = y->parent.get();
  const ModulePath::Node* first_x = nullptr;
  const ModulePath::Node* first_y = nullptr;
  for (; x != y; x = x->parent.get(), y = y->parent.get()) {
    if (x->component != y->component) first_x = x, first_y = y;
  }
  if (first_x == nullptr) return a.Depth() < b.Depth();
  const std::string_view cx = first_x->component, cy = first_y->component;
  const std::size_t common = std::min(cx.size(), cy.size());
  if (const int order = cx.substr(0, common).compare(cy.substr(0, common)); order != 0) {
    return order < 0;
  }
  // One component is the other's start: after it its string has a '.' or ends, the other's a
  // byte of its component (never a '.').
  const auto next = [](std::string_view component, std::size_t at, bool more) -> int {
    if (at < component.size()) return static_cast<unsigned char>(component[at]);
    return more ? '.' : -1;
  };
  return next(cx, common, a.Depth() > first_x->depth) <
         next(cy, common, b.Depth() > first_y->depth);
}

std::ostream& operator<<(std::ostream& out, const ModulePath& path) { return out << path.str(); }

bool IsSameOrDescendant(const ModulePath& path, const ModulePath& ancestor) {
  if (path.Depth() < ancestor.Depth()) return false;
  const ModulePath::Node* up = path.node_.get();
  while (up != nullptr && up->depth > ancestor.Depth()) up = up->parent.get();
  return ModulePath::SamePath(up, ancestor.node_.get());
}

}  // namespace advisor
