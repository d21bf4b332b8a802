// The entries of a zip archive (a TorchScript model is one), read from its central directory
// without LibTorch and without reading any entry: what each entry would expand to is known from
// the directory before anything is inflated. The bytes are untrusted; anything malformed is a
// ZipError, never a read out of bounds.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace advisor {

struct ZipEntry {
  std::string name;              // as stored, e.g. "model/extra/advisor/workload.json"
  std::uint16_t method = 0;      // 0 stored, 8 deflated
  std::uint64_t compressed = 0;  // bytes in the archive
  std::uint64_t uncompressed = 0;  // bytes it expands to, as the directory says
};

class ZipError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `length` bytes at `offset`; returns fewer when the source ends or fails.
using ReadBytes = std::function<std::string(std::uint64_t offset, std::size_t length)>;

// The central directory's entries (zip64 included) of an archive of `size` bytes. Throws
// ZipError with the reason, e.g. "no end of central directory record" for a truncated archive.
std::vector<ZipEntry> ReadZipDirectory(std::uint64_t size, const ReadBytes& read);

// The same for a file; throws ZipError when it cannot be read.
std::vector<ZipEntry> ReadZipDirectoryOfFile(const std::string& path);

}  // namespace advisor
