#include "probes/cupti/activity_buffer_pool.h"

#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define ADVISOR_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADVISOR_LEAK_CHECKED 1
#endif
#endif
#ifdef ADVISOR_LEAK_CHECKED
#include <sanitizer/lsan_interface.h>
#endif

namespace advisor {

ActivityBufferPool::ActivityBufferPool(std::size_t buffer_bytes, std::size_t max_buffers)
    : buffer_bytes_(buffer_bytes), max_buffers_(max_buffers) {}

ActivityBufferPool::~ActivityBufferPool() {
  for (auto& [address, buffer] : lent_) {
    buffer.release();
#ifdef ADVISOR_LEAK_CHECKED
    __lsan_ignore_object(address);  // the leak is the design: CUPTI may still write there
#endif
  }
}

std::uint8_t* ActivityBufferPool::Lend() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (lent_.size() + returned_.size() >= max_buffers_) {
    ++refused_;
    return nullptr;
  }
  // new[] aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16 on x86-64); CUPTI needs 8.
  auto buffer = std::make_unique<std::uint8_t[]>(buffer_bytes_);
  std::uint8_t* address = buffer.get();
  lent_.emplace(address, std::move(buffer));
  return address;
}

bool ActivityBufferPool::Return(std::uint8_t* buffer, std::size_t valid_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = lent_.find(buffer);
  if (it == lent_.end()) return false;
  returned_.push_back(Returned{std::move(it->second), valid_bytes});
  lent_.erase(it);
  return true;
}

void ActivityBufferPool::ReadReturned(
    const std::function<void(std::uint8_t* data, std::size_t valid_bytes)>& read) {
  std::vector<Returned> taken;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    taken.swap(returned_);
  }
  for (const Returned& buffer : taken) read(buffer.data.get(), buffer.valid_bytes);
}

std::uint64_t ActivityBufferPool::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

std::size_t ActivityBufferPool::lent() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lent_.size();
}

}  // namespace advisor
