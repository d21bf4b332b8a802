#include "engine/autotest/autotest_budget.h"

#include <algorithm>

#include "engine/util/duration.h"

namespace advisor {

AutotestBudget::AutotestBudget(std::optional<std::chrono::seconds> limit, Clock::time_point start)
    : limit_(limit) {
  if (limit) deadline_ = start + *limit;
}

void AutotestBudget::RecordRound(Clock::duration duration) {
  measured_ += duration;
  ++rounds_;
}

bool AutotestBudget::RoomForRound(Clock::time_point now) const {
  if (!deadline_) return true;
  const Clock::duration round = rounds_ > 0 ? measured_ / rounds_ : Clock::duration{};
  return now + round <= *deadline_;
}

std::string AutotestBudget::DescribeTimeLeft(int rounds_left, Clock::time_point now) const {
  if (rounds_ == 0) return "";
  Clock::duration left = measured_ / rounds_ * std::max(rounds_left, 0);
  if (deadline_) left = std::min(left, std::max(*deadline_ - now, Clock::duration{}));
  return "at most " + FormatDuration(left) + " left";
}

std::string AutotestBudget::DescribeLimit() const {
  return limit_ ? FormatDuration(*limit_) : "";
}

}  // namespace advisor
