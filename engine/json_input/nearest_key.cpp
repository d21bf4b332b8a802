#include "engine/json_input/nearest_key.h"

#include <algorithm>

namespace advisor {
namespace {

// Levenshtein distance: the single-character insertions, deletions and substitutions between
// two keys.
std::size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string NearestKey(const std::string& key, const std::vector<std::string>& allowed) {
  std::string nearest;
  std::size_t best = 3;
  for (const std::string& candidate : allowed) {
    const std::size_t distance = EditDistance(key, candidate);
    if (distance < best && 2 * distance < candidate.size()) {
      best = distance;
      nearest = candidate;
    }
  }
  return nearest;
}

}  // namespace advisor
