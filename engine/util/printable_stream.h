// The terminal's guard: advisor's stdout and stderr pass through PrintableText line by line, so
// that nothing a model or a rule says (a finding's message, a module path in a progress line, the
// first line of a worker's error) can reach the terminal as an escape sequence.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace advisor {

// A stream buffer that hands each line (and what is pending at a flush) to `target` through
// PrintableText.
class PrintableStreamBuffer : public std::streambuf {
 public:
  explicit PrintableStreamBuffer(std::streambuf* target) : target_(target) {}

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;
  int sync() override;

 private:
  void Emit();

  std::streambuf* target_;
  std::string pending_;
};

// Routes `stream` through a PrintableStreamBuffer for its lifetime, then flushes and restores it.
class PrintableStream {
 public:
  explicit PrintableStream(std::ostream& stream);
  ~PrintableStream();
  PrintableStream(const PrintableStream&) = delete;
  PrintableStream& operator=(const PrintableStream&) = delete;

 private:
  std::ostream& stream_;
  std::streambuf* original_;
  PrintableStreamBuffer buffer_;
};

}  // namespace advisor
