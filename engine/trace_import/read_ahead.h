// A .json.gz inflated ahead, on a thread of its own: the thread that reads the text scans it for
// events while the next pieces inflate, so the read goes at the inflater's speed rather than at
// the inflater's and the scanner's one after the other. Memory holds a few pieces, never more.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/trace_import/input_stream.h"

namespace advisor {

class ReadAheadStream : public GzipStream {
 public:
  // Inflates `source` in pieces of `piece_bytes`, at most `pieces_ahead` ahead of the reader.
  ReadAheadStream(std::unique_ptr<GzipStream> source, std::size_t piece_bytes,
                  std::size_t pieces_ahead = 2);
  // Stops the inflater (a reader may stop early: a bad event, an exception) and waits for it.
  ~ReadAheadStream() override;
  ReadAheadStream(const ReadAheadStream&) = delete;
  ReadAheadStream& operator=(const ReadAheadStream&) = delete;

  // The source's text in order; its TraceError once the text before the error has been read.
  std::size_t Read(char* buffer, std::size_t capacity) override;

 private:
  struct Piece {
    std::vector<char> data;  // capacity piece_bytes_; reused
    std::size_t size = 0;
  };

  void Inflate();  // the inflater thread

  const std::unique_ptr<GzipStream> source_;
  const std::size_t piece_bytes_;
  const std::size_t pieces_ahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Piece> ready_;   // inflated, in order
  std::vector<Piece> spare_;  // read, for the inflater to fill again
  bool inflated_all_ = false;  // the inflater is done: at the end, or at error_
  bool stop_ = false;
  std::exception_ptr error_;
  Piece current_;  // the piece being read (the reader's own)
  std::size_t taken_ = 0;
  std::thread inflater_;  // last: starts once everything above is set
};

}  // namespace advisor
