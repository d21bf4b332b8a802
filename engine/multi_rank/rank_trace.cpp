#include "engine/multi_rank/rank_trace.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace advisor {
namespace {

// N in the first "rank<N>" (or "rank-N", "rank_N") of the file name; -1 when none.
int RankInFileName(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  for (std::size_t at = name.find("rank"); at != std::string::npos;
       at = name.find("rank", at + 1)) {
    std::size_t digits = at + 4;
    if (digits < name.size() && (name[digits] == '-' || name[digits] == '_')) ++digits;
    std::size_t end = digits;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])) &&
           end - digits < 6)
      ++end;
    if (end > digits) return std::stoi(name.substr(digits, end - digits));
  }
  return -1;
}

}  // namespace

int RankOf(const TraceMetadata& metadata, const std::string& path, int position,
           std::vector<std::string>& notes) {
  if (metadata.distributed && metadata.distributed->rank >= 0) return metadata.distributed->rank;
  const int from_name = RankInFileName(path);
  if (from_name >= 0) {
    notes.push_back(path + ": no distributedInfo; rank " + std::to_string(from_name) +
                    " from the file name");
    return from_name;
  }
  notes.push_back(path + ": no distributedInfo and no rank in the file name; taken as rank " +
                  std::to_string(position) + " by its place among the files");
  return position;
}

RankWindow WindowOf(const RankTrace& rank) {
  RankWindow window;
  window.rank = rank.rank;
  window.source = rank.path;
  window.distributed = rank.distributed;
  window.window = &rank.trace.window;
  window.collectives = &rank.trace.collectives;
  window.gpu_activity = rank.trace.gpu_activity;
  window.report = &rank.report;
  window.modules_window = &rank.trace.window;
  return window;
}

void SortByRank(std::vector<RankTrace>& ranks) {
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i].rank == ranks[i - 1].rank) {
      throw std::runtime_error(ranks[i - 1].path + " and " + ranks[i].path + " are both rank " +
                               std::to_string(ranks[i].rank) + ": give one trace per rank");
    }
  }
}

}  // namespace advisor
