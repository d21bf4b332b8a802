#include "engine/trace_import/read_ahead.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace advisor {

ReadAheadStream::ReadAheadStream(std::unique_ptr<GzipStream> source, std::size_t piece_bytes,
                                 std::size_t pieces_ahead)
    : source_(std::move(source)),
      piece_bytes_(std::max<std::size_t>(piece_bytes, 1)),
      pieces_ahead_(std::max<std::size_t>(pieces_ahead, 1)),
      inflater_([this] { Inflate(); }) {
  file_bytes_ = source_->file_bytes();
}

ReadAheadStream::~ReadAheadStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  inflater_.join();
}

void ReadAheadStream::Inflate() {
  while (true) {
    Piece piece;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stop_ || ready_.size() < pieces_ahead_; });
      if (stop_) return;
      if (!spare_.empty()) {
        piece = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    piece.size = 0;
    std::exception_ptr error;
    std::size_t got = 1;
    try {
      if (piece.data.size() < piece_bytes_) piece.data.resize(piece_bytes_);
      while (piece.size < piece_bytes_ && got > 0) {
        got = source_->Read(piece.data.data() + piece.size, piece_bytes_ - piece.size);
        piece.size += got;
      }
    } catch (...) {
      error = std::current_exception();  // after the text inflated before it
      got = 0;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (piece.size > 0) ready_.push_back(std::move(piece));
      inflated_all_ = got == 0;
      error_ = error;
    }
    changed_.notify_all();
    if (got == 0) return;
  }
}

std::size_t ReadAheadStream::Read(char* buffer, std::size_t capacity) {
  while (taken_ == current_.size) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!current_.data.empty()) spare_.push_back(std::move(current_));
    current_ = Piece{};
    taken_ = 0;
    changed_.notify_all();
    changed_.wait(lock, [this] { return !ready_.empty() || inflated_all_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return 0;
    }
    current_ = std::move(ready_.front());
    ready_.pop_front();
  }
  const std::size_t n = std::min(capacity, current_.size - taken_);
  std::memcpy(buffer, current_.data.data() + taken_, n);
  taken_ += n;
  return n;
}

}  // namespace advisor
