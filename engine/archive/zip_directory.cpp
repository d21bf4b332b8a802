#include "engine/archive/zip_directory.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "engine/util/input_file.h"

namespace advisor {
namespace {

constexpr std::uint32_t kEndOfDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr std::uint32_t kDirectoryEntry = 0x02014b50;
constexpr std::uint16_t kZip64ExtraField = 0x0001;
constexpr std::size_t kEndOfDirectorySize = 22;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kZip64EndOfDirectorySize = 56;
constexpr std::size_t kDirectoryEntrySize = 46;
constexpr std::size_t kMaxCommentSize = 0xFFFF;
// A TorchScript archive of a large model has some thousand entries, under a megabyte of
// directory; a directory this large is not one.
constexpr std::uint64_t kMaxDirectoryBytes = std::uint64_t{64} << 20;

// Little-endian fields of a record, bounds-checked; a view of bytes its caller keeps.
class Record {
 public:
  explicit Record(std::string_view bytes) : bytes_(bytes) {}

  std::size_t size() const { return bytes_.size(); }
  std::uint16_t U16(std::size_t at) const { return static_cast<std::uint16_t>(Unsigned(at, 2)); }
  std::uint32_t U32(std::size_t at) const { return static_cast<std::uint32_t>(Unsigned(at, 4)); }
  std::uint64_t U64(std::size_t at) const { return Unsigned(at, 8); }
  std::string_view Text(std::size_t at, std::size_t length) const {
    if (at > bytes_.size() || length > bytes_.size() - at) throw ZipError("a record is cut short");
    return bytes_.substr(at, length);
  }

 private:
  std::uint64_t Unsigned(std::size_t at, std::size_t width) const {
    if (at > bytes_.size() || width > bytes_.size() - at) throw ZipError("a record is cut short");
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
      value |= std::uint64_t{static_cast<unsigned char>(bytes_[at + i])} << (8 * i);
    }
    return value;
  }

  std::string_view bytes_;
};

struct Directory {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;
};

std::string ReadExactly(const ReadBytes& read, std::uint64_t offset, std::size_t length) {
  std::string bytes = read(offset, length);
  if (bytes.size() != length) throw ZipError("the archive ends inside a record");
  return bytes;
}

// The end of central directory record sits at the end, before a comment of up to 64 KiB.
Directory FindDirectory(std::uint64_t size, const ReadBytes& read) {
  if (size < kEndOfDirectorySize) throw ZipError("no end of central directory record");
  const std::uint64_t tail_size =
      std::min<std::uint64_t>(size, kEndOfDirectorySize + kMaxCommentSize);
  const std::string tail_bytes =
      ReadExactly(read, size - tail_size, static_cast<std::size_t>(tail_size));
  const Record tail(tail_bytes);
  for (std::size_t at = tail.size() - kEndOfDirectorySize + 1; at-- > 0;) {
    if (tail.U32(at) != kEndOfDirectory) continue;
    Directory directory{tail.U32(at + 16), tail.U32(at + 12), tail.U16(at + 10)};
    const bool zip64 = directory.offset == 0xFFFFFFFF || directory.size == 0xFFFFFFFF ||
                       directory.entries == 0xFFFF;
    if (!zip64) return directory;
    const std::uint64_t end_at = size - tail_size + at;
    if (end_at < kZip64LocatorSize) throw ZipError("no zip64 end of central directory locator");
    const std::string locator_bytes =
        ReadExactly(read, end_at - kZip64LocatorSize, kZip64LocatorSize);
    const Record locator(locator_bytes);
    if (locator.U32(0) != kZip64Locator)
      throw ZipError("no zip64 end of central directory locator");
    const std::uint64_t record_at = locator.U64(8);
    if (record_at > size || size - record_at < kZip64EndOfDirectorySize) {
      throw ZipError("the zip64 end of central directory record lies outside the archive");
    }
    const std::string record_bytes = ReadExactly(read, record_at, kZip64EndOfDirectorySize);
    const Record record(record_bytes);
    if (record.U32(0) != kZip64EndOfDirectory) {
      throw ZipError("no zip64 end of central directory record");
    }
    return Directory{record.U64(48), record.U64(40), record.U64(32)};
  }
  throw ZipError("no end of central directory record");
}

// Sizes of 0xFFFFFFFF are in the zip64 extra field, in this order: uncompressed, compressed.
void ReadZip64Sizes(std::string_view extra, ZipEntry& entry, bool uncompressed_there,
                    bool compressed_there) {
  const Record fields(extra);
  std::size_t at = 0;
  while (at + 4 <= fields.size()) {
    const std::uint16_t id = fields.U16(at);
    const std::uint16_t length = fields.U16(at + 2);
    if (id == kZip64ExtraField) {
      const Record zip64(fields.Text(at + 4, length));
      std::size_t field = 0;
      if (uncompressed_there) {
        entry.uncompressed = zip64.U64(field);
        field += 8;
      }
      if (compressed_there) entry.compressed = zip64.U64(field);
      return;
    }
    at += 4 + std::size_t{length};
  }
  throw ZipError("entry \"" + entry.name + "\" has no zip64 sizes");
}

}  // namespace

std::vector<ZipEntry> ReadZipDirectory(std::uint64_t size, const ReadBytes& read) {
  const Directory directory = FindDirectory(size, read);
  if (directory.offset > size || directory.size > size - directory.offset) {
    throw ZipError("the central directory lies outside the archive");
  }
  if (directory.size > kMaxDirectoryBytes) {
    throw ZipError("a central directory of " + std::to_string(directory.size) +
                   " bytes is more than an archive of a model has");
  }
  if (directory.entries > directory.size / kDirectoryEntrySize) {
    throw ZipError("the central directory is smaller than its " +
                   std::to_string(directory.entries) + " entries");
  }
  const std::string directory_bytes =
      ReadExactly(read, directory.offset, static_cast<std::size_t>(directory.size));
  const Record records(directory_bytes);
  std::vector<ZipEntry> entries;
  entries.reserve(static_cast<std::size_t>(directory.entries));
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < directory.entries; ++i) {
    if (records.U32(at) != kDirectoryEntry) throw ZipError("a central directory entry is damaged");
    ZipEntry entry;
    entry.method = records.U16(at + 10);
    entry.compressed = records.U32(at + 20);
    entry.uncompressed = records.U32(at + 24);
    const std::size_t name_length = records.U16(at + 28);
    const std::size_t extra_length = records.U16(at + 30);
    const std::size_t comment_length = records.U16(at + 32);
    entry.name = std::string(records.Text(at + kDirectoryEntrySize, name_length));
    const bool uncompressed_there = entry.uncompressed == 0xFFFFFFFF;
    const bool compressed_there = entry.compressed == 0xFFFFFFFF;
    if (uncompressed_there || compressed_there) {
      ReadZip64Sizes(records.Text(at + kDirectoryEntrySize + name_length, extra_length), entry,
                     uncompressed_there, compressed_there);
    }
    entries.push_back(std::move(entry));
    at += kDirectoryEntrySize + name_length + extra_length + comment_length;
  }
  return entries;
}

std::vector<ZipEntry> ReadZipDirectoryOfFile(const std::string& path) {
  const auto open = [&] {
    try {
      return InputFile(path);  // a FIFO is refused, not waited on
    } catch (const InputFileError& error) {
      throw ZipError(error.problem());
    }
  };
  const InputFile file = open();
  const ReadBytes read = [fd = file.fd()](std::uint64_t offset, std::size_t length) {
    std::string bytes(length, '\0');
    std::size_t done = 0;
    while (done < length) {
      const ssize_t n = pread(fd, bytes.data() + done, length - done,
                              static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    return bytes;
  };
  return ReadZipDirectory(file.size(), read);
}

}  // namespace advisor
