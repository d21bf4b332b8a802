// The autotest's clock: the wall time the user allows it (--autotest-budget) and what its A/B
// rounds have cost so far, from which it says how long it may still take and whether another
// round fits.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace advisor {

class AutotestBudget {
 public:
  using Clock = std::chrono::steady_clock;

  // No limit when `limit` is empty; the clock starts now.
  explicit AutotestBudget(std::optional<std::chrono::seconds> limit = std::nullopt,
                          Clock::time_point start = Clock::now());

  // One A/B round (a baseline and a candidate process) took `duration`.
  void RecordRound(Clock::duration duration);

  // Whether a round, costing what rounds cost on average so far, would end within the limit.
  // Before any round was measured only the time already spent counts.
  bool RoomForRound(Clock::time_point now = Clock::now()) const;

  // Whether work expected to take `cost` (a run of blocks, priced by the run before it) would
  // end within the limit.
  bool RoomFor(Clock::duration cost, Clock::time_point now = Clock::now()) const;

  // An upper bound on the time still needed for `rounds_left` more rounds at the average cost,
  // never beyond the limit: "at most 2m10s left". "" before the first round was measured.
  std::string DescribeTimeLeft(int rounds_left, Clock::time_point now = Clock::now()) const;

  // "5m00s", for the lines that say the budget ran out; "" without a limit.
  std::string DescribeLimit() const;

  // What a bigger budget would buy, for a candidate the limit left untried: the budget that would
  // have run `rounds` more rounds at the average cost after the time spent so far ("a budget of
  // 4m10s would run its 5 rounds, at about 30s each here"); "" without a limit or before the
  // first round was measured. A lower bound: a numerics check of the candidate's own adds to it.
  std::string DescribeBudgetFor(int rounds, Clock::time_point now = Clock::now()) const;

 private:
  std::optional<Clock::time_point> deadline_;
  std::optional<std::chrono::seconds> limit_;
  Clock::duration measured_{};
  int rounds_ = 0;
};

}  // namespace advisor
