// A unified diff of two texts, line by line, for a person to read: the TorchScript code of a
// method before and after a graph rewrite (engine/model_candidate), shown in the report beside the
// fix.
#pragma once

#include <string>

namespace advisor {

struct DiffOptions {
  int context = 2;      // unchanged lines shown around each change
  int max_lines = 40;   // lines of hunks at most; the rest is counted in one closing line
};

// "@@ -a,n +b,m @@" hunks with ' ', '-' and '+' lines; "" when the texts are equal. No "---" and
// "+++" header: the caller names what was compared.
std::string UnifiedDiff(const std::string& before, const std::string& after,
                        const DiffOptions& options = {});

}  // namespace advisor
