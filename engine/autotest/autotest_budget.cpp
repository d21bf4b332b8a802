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
  return RoomFor(rounds_ > 0 ? measured_ / rounds_ : Clock::duration{}, now);
}

bool AutotestBudget::RoomFor(Clock::duration cost, Clock::time_point now) const {
  return !deadline_ || now + cost <= *deadline_;
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

std::string AutotestBudget::DescribeBudgetFor(int rounds, Clock::time_point now) const {
  if (!deadline_ || rounds_ == 0) return "";
  const Clock::duration round = measured_ / rounds_;
  const Clock::duration spent = now - (*deadline_ - *limit_);
  return "a budget of at least " + FormatDuration(spent + round * rounds) + " would run its " +
         std::to_string(rounds) + (rounds == 1 ? " round" : " rounds") + ", at about " +
         FormatDuration(round) + " each here";
}

}  // namespace advisor
