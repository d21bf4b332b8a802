#include "engine/util/unified_diff.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace advisor {
namespace {

// Beyond this many cells the changed middle is shown as removed, then added, unaligned: a
// rewritten method's changes are local, so its middle stays small.
constexpr std::size_t kMaxTableCells = 4'000'000;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Edit {
  char op;     // ' ', '-', '+'
  int before;  // 0-based line in `before` (for ' ' and '-')
  int after;   // 0-based line in `after` (for ' ' and '+')
};

// The edit script from a longest common subsequence of the middle the texts do not share.
std::vector<Edit> Edits(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  int prefix = 0;
  while (prefix < n && prefix < m && a[prefix] == b[prefix]) ++prefix;
  int suffix = 0;
  while (suffix < n - prefix && suffix < m - prefix && a[n - 1 - suffix] == b[m - 1 - suffix]) {
    ++suffix;
  }
  std::vector<Edit> edits;
  for (int i = 0; i < prefix; ++i) edits.push_back({' ', i, i});
  const int rows = n - prefix - suffix, cols = m - prefix - suffix;
  if (static_cast<std::size_t>(rows + 1) * static_cast<std::size_t>(cols + 1) > kMaxTableCells) {
    for (int i = 0; i < rows; ++i) edits.push_back({'-', prefix + i, prefix});
    for (int j = 0; j < cols; ++j) edits.push_back({'+', prefix + rows, prefix + j});
  } else {
    // common[i][j]: the longest common subsequence of the middles' tails from i and j.
    std::vector<std::vector<int>> common(rows + 1, std::vector<int>(cols + 1, 0));
    for (int i = rows - 1; i >= 0; --i) {
      for (int j = cols - 1; j >= 0; --j) {
        common[i][j] = a[prefix + i] == b[prefix + j]
                           ? common[i + 1][j + 1] + 1
                           : std::max(common[i + 1][j], common[i][j + 1]);
      }
    }
    int i = 0, j = 0;
    while (i < rows || j < cols) {
      if (i < rows && j < cols && a[prefix + i] == b[prefix + j]) {
        edits.push_back({' ', prefix + i++, prefix + j++});
      } else if (j == cols || (i < rows && common[i + 1][j] >= common[i][j + 1])) {
        edits.push_back({'-', prefix + i++, prefix + j});
      } else {
        edits.push_back({'+', prefix + i, prefix + j++});
      }
    }
  }
  for (int k = 0; k < suffix; ++k) edits.push_back({' ', n - suffix + k, m - suffix + k});
  return edits;
}

std::string Range(int start, int count) {
  // Unified diff numbers lines from 1; an empty range names the line before it.
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

}  // namespace

std::string UnifiedDiff(const std::string& before, const std::string& after,
                        const DiffOptions& options) {
  const std::vector<std::string> a = Lines(before), b = Lines(after);
  const std::vector<Edit> edits = Edits(a, b);
  const int total = static_cast<int>(edits.size());
  std::vector<std::string> out;
  int k = 0;
  while (k < total) {
    if (edits[k].op == ' ') {
      ++k;
      continue;
    }
    // A hunk: `context` lines before this change, every change that follows within 2 * context
    // unchanged lines of the one before, and `context` lines after the last.
    const int start = std::max(0, k - options.context);
    int last_change = k;
    for (int e = k; e < total && e - last_change <= 2 * options.context; ++e) {
      if (edits[e].op != ' ') last_change = e;
    }
    const int end = std::min(total, last_change + 1 + options.context);
    int before_count = 0, after_count = 0;
    for (int e = start; e < end; ++e) {
      if (edits[e].op != '+') ++before_count;
      if (edits[e].op != '-') ++after_count;
    }
    out.push_back("@@ -" + Range(edits[start].before, before_count) + " +" +
                  Range(edits[start].after, after_count) + " @@");
    for (int e = start; e < end; ++e) {
      const std::string& text = edits[e].op == '+' ? b[edits[e].after] : a[edits[e].before];
      out.push_back(std::string(1, edits[e].op) + text);
    }
    k = end;
  }
  std::string diff;
  const int shown = std::min(static_cast<int>(out.size()), options.max_lines);
  for (int i = 0; i < shown; ++i) diff += out[i] + "\n";
  if (shown < static_cast<int>(out.size())) {
    diff += "... " + std::to_string(out.size() - shown) + " more lines of the diff\n";
  }
  return diff;
}

}  // namespace advisor
