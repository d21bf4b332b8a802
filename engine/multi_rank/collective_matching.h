// The same collective on every rank. A process group runs its collectives in one order on all of
// its ranks, so a collective is (process group, sequence number) where the trace records "Seq",
// and (process group, name, its place among the group's collectives of that name) where not.
#pragma once

#include <string>
#include <vector>

#include "engine/trace_analysis/collectives.h"

namespace advisor {

struct MatchedCollective {
  std::string key;          // "pg 0 seq 41", "pg ? allreduce #3": for messages
  std::vector<int>
      calls;  // per rank (the order of the input): index into its calls, -1 when missing
  bool complete() const;    // on every rank
};

// `ranks[r]`: rank r's collectives in start order. Matches appear in the first rank's order,
// then the others'.
std::vector<MatchedCollective> MatchCollectives(
    const std::vector<const std::vector<CollectiveCall>*>& ranks);

}  // namespace advisor
