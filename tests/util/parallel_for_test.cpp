// ParallelFor runs every task once, whatever the threads, and hands back what a task threw.
#include "engine/util/parallel_for.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

namespace advisor {
namespace {

TEST(ParallelFor, RunsEveryTaskOnceOnAnyNumberOfThreads) {
  for (int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE(threads);
    std::vector<int> runs(1000, 0);  // each task writes only its own
    ParallelFor(runs.size(), threads, [&](std::size_t i) { ++runs[i]; });
    EXPECT_EQ(std::vector<int>(runs.size(), 1), runs);
  }
  ParallelFor(0, 4, [](std::size_t) { FAIL() << "no task to run"; });
}

TEST(ParallelFor, OneThreadRunsTheTasksInOrderOnTheCallingThread) {
  std::vector<std::size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  ParallelFor(5, 1, [&](std::size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(ParallelFor, RethrowsWhatATaskThrew) {
  for (int threads : {1, 4}) {
    SCOPED_TRACE(threads);
    try {
      ParallelFor(100, threads, [&](std::size_t i) {
        if (i == 10) throw std::runtime_error("task 10");
      });
      ADD_FAILURE() << "nothing thrown";
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(), "task 10");
    }
  }
}

}  // namespace
}  // namespace advisor
