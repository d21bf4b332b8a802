// The inflater running ahead hands the reader the same text, in order, and its errors after the
// text before them.
#include "engine/trace_import/read_ahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/trace_import/trace_error.h"

namespace advisor {
namespace {

// A stream of `text` in reads of at most `step` bytes, then a TraceError where `fail_at` is set.
class FakeStream : public GzipStream {
 public:
  FakeStream(std::string text, std::size_t step, bool fail_at_end = false)
      : text_(std::move(text)), step_(step), fail_at_end_(fail_at_end) {
    file_bytes_ = 1234;
  }
  std::size_t Read(char* buffer, std::size_t capacity) override {
    if (at_ == text_.size() && fail_at_end_) throw TraceError("fake.json.gz", at_, "corrupt");
    const std::size_t n = std::min({capacity, step_, text_.size() - at_});
    text_.copy(buffer, n, at_);
    at_ += n;
    return n;
  }

 private:
  const std::string text_;
  const std::size_t step_;
  const bool fail_at_end_;
  std::size_t at_ = 0;
};

std::string Text(std::size_t bytes) {
  std::string text(bytes, ' ');
  for (std::size_t i = 0; i < bytes; ++i) text[i] = static_cast<char>('a' + (i * 7) % 26);
  return text;
}

std::string ReadAll(GzipStream& stream, std::size_t capacity) {
  std::string text;
  std::string buffer(capacity, '\0');
  while (const std::size_t got = stream.Read(buffer.data(), capacity)) text.append(buffer, 0, got);
  return text;
}

TEST(ReadAhead, GivesTheSourcesTextInOrderWhateverThePieceAndReadSizes) {
  const std::string text = Text(100003);
  for (const std::size_t piece : {1u, 7u, 4096u, 200000u}) {
    for (const std::size_t capacity : {1u, 3000u, 65536u}) {
      ReadAheadStream stream(std::make_unique<FakeStream>(text, 999), piece);
      EXPECT_EQ(stream.file_bytes(), 1234u);
      EXPECT_TRUE(ReadAll(stream, capacity) == text) << "piece " << piece << " read " << capacity;
      EXPECT_EQ(stream.Read(nullptr, 1), 0u) << "the end stays the end";
    }
  }
}

TEST(ReadAhead, AnErrorComesAfterTheTextBeforeIt) {
  const std::string text = Text(50000);
  ReadAheadStream stream(std::make_unique<FakeStream>(text, 4000, /*fail_at_end=*/true), 8192);
  std::string read;
  char buffer[1000];
  try {
    while (const std::size_t got = stream.Read(buffer, sizeof buffer)) read.append(buffer, got);
    ADD_FAILURE() << "no error";
  } catch (const TraceError& error) {
    EXPECT_EQ(std::string(error.what()), "fake.json.gz: byte 50000: corrupt");
  }
  EXPECT_EQ(read.size(), text.size());
  EXPECT_TRUE(read == text);
}

TEST(ReadAhead, AReaderThatStopsEarlyEndsTheInflater) {
  // Destroyed with the inflater blocked on a full queue: it must stop, not hang.
  ReadAheadStream stream(std::make_unique<FakeStream>(Text(1 << 20), 100), 1024, 2);
  char buffer[10];
  EXPECT_EQ(stream.Read(buffer, sizeof buffer), 10u);
}

}  // namespace
}  // namespace advisor
