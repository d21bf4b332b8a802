// The activity buffers lent to CUPTI, bounded in number so that a long or busy window cannot eat
// the host's memory. CUPTI asks for a buffer from its own threads whenever one fills and hands it
// back full; a refused request makes CUPTI drop records, which it counts and the probe reports.
// Knows nothing of CUPTI, so its bounds are tested on any machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace advisor {

class ActivityBufferPool {
 public:
  ActivityBufferPool(std::size_t buffer_bytes, std::size_t max_buffers);
  // Frees every buffer it holds. Buffers still lent out are leaked on purpose: CUPTI may yet
  // write into them.
  ~ActivityBufferPool();
  ActivityBufferPool(const ActivityBufferPool&) = delete;
  ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

  // A fresh buffer of buffer_bytes() (aligned for any record), or nullptr, counted in refused(),
  // when max_buffers are lent out or waiting to be read.
  std::uint8_t* Lend();

  // CUPTI hands back a buffer holding valid_bytes of records. False for a buffer this pool did not
  // lend (one lent by an earlier probe): it is left alone.
  bool Return(std::uint8_t* buffer, std::size_t valid_bytes);

  // Calls read on every returned buffer, in the order they came back, then frees each.
  void ReadReturned(const std::function<void(std::uint8_t* data, std::size_t valid_bytes)>& read);

  std::size_t buffer_bytes() const { return buffer_bytes_; }
  std::size_t max_buffers() const { return max_buffers_; }
  std::uint64_t refused() const;
  std::size_t lent() const;  // out with CUPTI now

 private:
  struct Returned {
    std::unique_ptr<std::uint8_t[]> data;
    std::size_t valid_bytes = 0;
  };

  const std::size_t buffer_bytes_;
  const std::size_t max_buffers_;
  mutable std::mutex mutex_;
  std::unordered_map<std::uint8_t*, std::unique_ptr<std::uint8_t[]>> lent_;
  std::vector<Returned> returned_;
  std::uint64_t refused_ = 0;
};

}  // namespace advisor
