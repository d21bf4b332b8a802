#include "engine/multi_rank/collective_matching.h"

#include <algorithm>
#include <map>

namespace advisor {
namespace {

// The identity of each call of one rank.
std::vector<std::string> KeysOf(const std::vector<CollectiveCall>& calls) {
  std::map<std::string, int> seen;  // (group, name) -> calls so far, for traces without Seq
  std::vector<std::string> keys;
  for (const CollectiveCall& call : calls) {
    const std::string group = call.process_group.empty() ? "?" : call.process_group;
    if (call.seq >= 0) {
      keys.push_back("pg " + group + " seq " + std::to_string(call.seq));
    } else {
      const int place = seen[group + "\n" + call.name]++;
      keys.push_back("pg " + group + " " + call.name + " #" + std::to_string(place));
    }
  }
  return keys;
}

}  // namespace

bool MatchedCollective::complete() const {
  return std::none_of(calls.begin(), calls.end(), [](int call) { return call < 0; });
}

std::vector<MatchedCollective> MatchCollectives(
    const std::vector<const std::vector<CollectiveCall>*>& ranks) {
  std::vector<MatchedCollective> matches;
  std::map<std::string, std::size_t> match_of_key;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::vector<std::string> keys = KeysOf(*ranks[r]);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto [it, added] = match_of_key.emplace(keys[i], matches.size());
      if (added) matches.push_back({keys[i], std::vector<int>(ranks.size(), -1)});
      int& call = matches[it->second].calls[r];
      if (call < 0) call = static_cast<int>(i);  // a repeated key keeps its first call
    }
  }
  return matches;
}

}  // namespace advisor
