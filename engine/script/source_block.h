// The lines of the Python function around one line of the user's file, read from the file as it
// is now: what a code change needs beyond the one line a finding names (an attention's mask and
// dropout sit on the lines before and after its softmax).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace advisor {

struct SourceBlock {
  int first_line = 0;              // the number of lines[0], 1-based
  std::vector<std::string> lines;  // as in the file, untrimmed
};

// The function whose body holds `line` of `file`: from its `def` line to the last line indented
// under it. nullopt when the file cannot be read (not a regular file, or over 4 MiB), does not
// have that line, or no `def` encloses it.
std::optional<SourceBlock> EnclosingFunction(const std::string& file, int line);

}  // namespace advisor
