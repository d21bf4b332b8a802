// Worker threads that run one function on tasks submitted in order and hand the results back in
// submission order, with at most twice as many tasks in flight as threads: the submitting thread
// never runs far ahead of the oldest task (one slow task does not let the others' results, or
// the text they hold, pile up).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace advisor {

template <typename Task, typename Result>
class OrderedPool {
 public:
  OrderedPool(int threads, std::function<Result(Task&)> work)
      : work_(std::move(work)), capacity_(static_cast<std::size_t>(threads) * 2) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~OrderedPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }
  OrderedPool(const OrderedPool&) = delete;
  OrderedPool& operator=(const OrderedPool&) = delete;

  // Submits `task`. While the pool is full, the oldest result is waited for and handed to
  // `take(Result&&)` first.
  template <typename Take>
  void Submit(Task task, Take&& take) {
    Result result;
    while (Full() && TakeNext(result, /*wait=*/true)) take(std::move(result));
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.emplace_back(submitted_++, std::move(task));
    work_ready_.notify_one();
  }

  // The next result in submission order when it is ready (waiting for it when `wait`); false
  // when it is not ready yet or every submitted task's result was taken. Rethrows what a task
  // threw.
  bool TakeNext(Result& out, bool wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (taken_ == submitted_) return false;
    if (wait) result_ready_.wait(lock, [this] { return failure_ || results_.count(taken_) > 0; });
    if (failure_) std::rethrow_exception(failure_);
    auto it = results_.find(taken_);
    if (it == results_.end()) return false;
    out = std::move(it->second);
    results_.erase(it);
    ++taken_;
    return true;
  }

 private:
  void Work() {
    while (true) {
      std::pair<std::uint64_t, Task> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      try {
        Result result = work_(task.second);
        task.second = Task{};  // what the task holds is released before its result is taken
        std::lock_guard<std::mutex> lock(mutex_);
        results_.emplace(task.first, std::move(result));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!failure_) failure_ = std::current_exception();
      }
      result_ready_.notify_all();
    }
  }

  bool Full() {
    std::lock_guard<std::mutex> lock(mutex_);
    return submitted_ - taken_ >= capacity_;
  }

  const std::function<Result(Task&)> work_;
  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable result_ready_;
  std::deque<std::pair<std::uint64_t, Task>> queue_;
  std::map<std::uint64_t, Result> results_;
  std::uint64_t submitted_ = 0;
  std::uint64_t taken_ = 0;
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Runs work(k) for each k of [0, n) and hands each result to take(Result&&) on the calling
// thread, in k's order: on `threads` workers (an OrderedPool) where threads > 1 and n > 1, else
// each in turn on the calling thread. What take sees is the same with any number.
template <typename Work, typename Take>
void RunInOrder(std::size_t n, int threads, Work work, Take take) {
  using Result = std::invoke_result_t<Work&, std::size_t>;
  if (threads <= 1 || n <= 1) {
    for (std::size_t k = 0; k < n; ++k) take(work(k));
    return;
  }
  OrderedPool<std::size_t, Result> pool(
      static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), n)),
      [&work](std::size_t& k) { return work(k); });
  for (std::size_t k = 0; k < n; ++k) pool.Submit(k, take);
  Result result;
  while (pool.TakeNext(result, /*wait=*/true)) take(std::move(result));
}

}  // namespace advisor
