// The bounds every reader of untrusted JSON shares, so that a broken or hostile file or probe
// cannot make advisor hold more than it means to. Bounds that belong to one format (a recipe's
// bytes, a window's batches) stay with that format's reader and are passed in.
#pragma once

#include <cstddef>

namespace advisor {

// Deeper than any format advisor reads (a node summary's events are five levels down): a
// document nested deeper is refused before any reader walks it. The trace reader's own scanner
// (engine/trace_import/json_scan.h) keeps the same bound.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Text that is shown to the user (a probe's module paths, versions, host names): at most this many
// bytes, without control characters.
inline constexpr std::size_t kMaxJsonTextBytes = 4096;

// How much of an offending value an error quotes after "got": enough to recognise it, one line.
inline constexpr std::size_t kMaxQuotedValueBytes = 40;

}  // namespace advisor
