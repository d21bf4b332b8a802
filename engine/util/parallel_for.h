// Independent tasks run on several threads: each task writes only what is its own.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace advisor {

// Runs task(i) for every i in [0, tasks), on `threads` threads (the calling one among them), each
// taking the next task not yet taken; on the calling thread alone, in order, where `threads` <= 1.
// Returns once every task has run; rethrows the first exception a task threw (the tasks not yet
// begun then may never run).
template <typename Task>
void ParallelFor(std::size_t tasks, int threads, const Task& task) {
  if (threads <= 1 || tasks <= 1) {
    for (std::size_t i = 0; i < tasks; ++i) task(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto work = [&] {
    for (std::size_t i = next++; i < tasks && !failed; i = next++) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  const std::size_t helping = std::min<std::size_t>(static_cast<std::size_t>(threads), tasks) - 1;
  for (std::size_t h = 0; h < helping; ++h) helpers.emplace_back(work);
  work();
  for (std::thread& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace advisor
