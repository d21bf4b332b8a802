// Zip archives built in memory for the tests of the zip directory reader: entries with any
// declared sizes (a zip bomb's directory says what the entry expands to, whatever the data), and
// the zip64 form of the directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace advisor::testing {

struct BuiltEntry {
  std::string name;
  std::string data;                // stored as is
  std::uint64_t uncompressed = 0;  // declared; 0: data.size()
  std::uint16_t method = 0;
};

// A zip of `entries`; with `zip64`, the sizes and the directory's location are in zip64 fields.
std::string BuildZip(const std::vector<BuiltEntry>& entries, bool zip64 = false);

}  // namespace advisor::testing
