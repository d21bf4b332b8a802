// The bounds of the plain-pickle reader (docs/security.md#limits): a broken or hostile file ends
// in one PickleError line before it can make advisor hold more than these.
#pragma once

#include <cstddef>
#include <cstdint>

namespace advisor {

struct PickleLimits {
  // The file, read whole. A 1M-entry history with its frames is about 60 MB (make_snapshots.py
  // --big); items are indexed by 32 bits, which this and max_values keep far from.
  std::uint64_t max_bytes = std::uint64_t{2} << 30;
  // Marks open at once (a container whose items are still being pushed): the snapshot's layout
  // nests about seven deep; the same bound as JSON's kMaxJsonDepth.
  std::size_t max_depth = 64;
  // Values pushed (memo fetches and memo entries included): each costs 16 bytes of the document
  // (1 GiB at this bound). The 1M-entry history above pushes about 16 million.
  std::uint64_t max_values = std::uint64_t{1} << 26;
};

}  // namespace advisor
