#include "engine/trace_import/gzip_members.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "engine/trace_import/trace_error.h"

namespace advisor {

GzipMembers::GzipMembers(std::string path, FileHandle file, std::uint64_t size)
    : path_(std::move(path)), file_(std::move(file)), input_(1 << 20) {
  file_bytes_ = size;
}

std::size_t GzipMembers::Read(char* buffer, std::size_t capacity) {
  std::size_t written = 0;
  while (written < capacity && !finished_) {
    if (InputLeft() == 0) {
      const std::size_t got =
          ReadFully(file_.get(), input_.data(), input_.size(), path_, compressed_offset_);
      compressed_offset_ += got;
      if (got == 0) {
        if (!member_done_) {
          throw TraceError(path_, compressed_offset_,
                           "the gzip data ends early (the file is cut off)");
        }
        finished_ = true;
        break;
      }
      Feed(input_.data(), got);
    }
    if (member_done_) {
      // More bytes after a complete member: the next member of a concatenated file.
      Restart();
      member_done_ = false;
    }
    const std::size_t room = std::min<std::size_t>(capacity - written, UINT32_MAX);
    switch (Inflate(buffer + written, room, written)) {
      case Inflated::kMore:
        break;
      case Inflated::kMemberEnd:
        member_done_ = true;
        break;
      case Inflated::kCorrupt:
        throw TraceError(path_, compressed_offset_ - InputLeft(),
                         "corrupt gzip data: " + Problem() + " (offset in the compressed file)");
    }
  }
  return written;
}

}  // namespace advisor
