#include "engine/util/printable_stream.h"

#include "engine/util/printable_text.h"

namespace advisor {

PrintableStreamBuffer::int_type PrintableStreamBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  pending_.push_back(traits_type::to_char_type(c));
  if (pending_.back() == '\n') Emit();
  return c;
}

std::streamsize PrintableStreamBuffer::xsputn(const char* text, std::streamsize count) {
  for (std::streamsize i = 0; i < count; ++i) {
    pending_.push_back(text[i]);
    if (text[i] == '\n') Emit();
  }
  return count;
}

int PrintableStreamBuffer::sync() {
  Emit();
  return target_->pubsync();
}

void PrintableStreamBuffer::Emit() {
  if (pending_.empty()) return;
  const std::string printable = PrintableText(pending_);
  target_->sputn(printable.data(), static_cast<std::streamsize>(printable.size()));
  pending_.clear();
}

PrintableStream::PrintableStream(std::ostream& stream)
    : stream_(stream), original_(stream.rdbuf()), buffer_(original_) {
  stream_.rdbuf(&buffer_);
}

PrintableStream::~PrintableStream() {
  stream_.flush();
  stream_.rdbuf(original_);
}

}  // namespace advisor
