// The model archive's zip directory, read before LibTorch inflates anything: any bytes are an
// archive whose entries the limits judge, or a ZipError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/archive/entry_limits.h"
#include "engine/archive/zip_directory.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<advisor::ZipEntry> entries = advisor::ReadZipDirectory(
        bytes.size(), [&bytes](std::uint64_t offset, std::size_t length) {
          return offset >= bytes.size() ? std::string() : bytes.substr(offset, length);
        });
    advisor::WhyEntriesTooLarge(entries, "advisor/workload.json");
  } catch (const advisor::ZipError&) {
  }
  return 0;
}
