#include "tests/archive/zip_builder.h"

namespace advisor::testing {
namespace {

void Put(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

}  // namespace

std::string BuildZip(const std::vector<BuiltEntry>& entries, bool zip64) {
  std::string zip;
  std::string directory;
  for (const BuiltEntry& entry : entries) {
    const std::uint64_t offset = zip.size();
    const std::uint64_t uncompressed = entry.uncompressed ? entry.uncompressed : entry.data.size();
    Put(zip, 0x04034b50, 4);
    Put(zip, 20, 2);
    Put(zip, 0, 2);
    Put(zip, entry.method, 2);
    Put(zip, 0, 8);  // time, date, crc
    Put(zip, zip64 ? 0xFFFFFFFF : entry.data.size(), 4);
    Put(zip, zip64 ? 0xFFFFFFFF : uncompressed, 4);
    Put(zip, entry.name.size(), 2);
    Put(zip, 0, 2);
    zip += entry.name + entry.data;

    std::string extra;
    if (zip64) {
      Put(extra, 0x0001, 2);
      Put(extra, 24, 2);
      Put(extra, uncompressed, 8);
      Put(extra, entry.data.size(), 8);
      Put(extra, offset, 8);
    }
    Put(directory, 0x02014b50, 4);
    Put(directory, 45, 2);
    Put(directory, 45, 2);
    Put(directory, 0, 2);
    Put(directory, entry.method, 2);
    Put(directory, 0, 8);  // time, date, crc
    Put(directory, zip64 ? 0xFFFFFFFF : entry.data.size(), 4);
    Put(directory, zip64 ? 0xFFFFFFFF : uncompressed, 4);
    Put(directory, entry.name.size(), 2);
    Put(directory, extra.size(), 2);
    Put(directory, 0, 2);   // comment
    Put(directory, 0, 8);   // disk, attributes
    Put(directory, zip64 ? 0xFFFFFFFF : offset, 4);
    directory += entry.name + extra;
  }
  const std::uint64_t directory_at = zip.size();
  zip += directory;
  if (zip64) {
    const std::uint64_t record_at = zip.size();
    Put(zip, 0x06064b50, 4);
    Put(zip, 44, 8);
    Put(zip, 45, 2);
    Put(zip, 45, 2);
    Put(zip, 0, 8);  // disks
    Put(zip, entries.size(), 8);
    Put(zip, entries.size(), 8);
    Put(zip, directory.size(), 8);
    Put(zip, directory_at, 8);
    Put(zip, 0x07064b50, 4);
    Put(zip, 0, 4);
    Put(zip, record_at, 8);
    Put(zip, 1, 4);
  }
  Put(zip, 0x06054b50, 4);
  Put(zip, 0, 4);  // disks
  Put(zip, zip64 ? 0xFFFF : entries.size(), 2);
  Put(zip, zip64 ? 0xFFFF : entries.size(), 2);
  Put(zip, zip64 ? 0xFFFFFFFF : directory.size(), 4);
  Put(zip, zip64 ? 0xFFFFFFFF : directory_at, 4);
  Put(zip, 0, 2);  // comment
  return zip;
}

}  // namespace advisor::testing
