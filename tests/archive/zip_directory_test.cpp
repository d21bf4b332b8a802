#include "engine/archive/zip_directory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/archive/entry_limits.h"
#include "tests/archive/zip_builder.h"

namespace advisor {
namespace {

using testing::BuildZip;
using ::testing::HasSubstr;

std::vector<ZipEntry> Read(const std::string& zip) {
  return ReadZipDirectory(zip.size(), [&zip](std::uint64_t offset, std::size_t length) {
    return offset >= zip.size() ? std::string() : zip.substr(offset, length);
  });
}

std::string ErrorOf(const std::string& zip) {
  try {
    Read(zip);
  } catch (const ZipError& error) {
    return error.what();
  }
  return "";
}

TEST(ZipDirectory, ReadsNamesAndDeclaredSizes) {
  for (bool zip64 : {false, true}) {
    const std::vector<ZipEntry> entries = Read(BuildZip(
        {{"m/data.pkl", "abc", 0, 0}, {"m/extra/advisor/workload.json", "{}", 5000, 8}}, zip64));
    ASSERT_EQ(entries.size(), 2u) << zip64;
    EXPECT_EQ(entries[0].name, "m/data.pkl");
    EXPECT_EQ(entries[0].compressed, 3u);
    EXPECT_EQ(entries[0].uncompressed, 3u);
    EXPECT_EQ(entries[1].name, "m/extra/advisor/workload.json");
    EXPECT_EQ(entries[1].method, 8);
    EXPECT_EQ(entries[1].compressed, 2u);
    EXPECT_EQ(entries[1].uncompressed, 5000u);
  }
}

TEST(ZipDirectory, MalformedArchivesAreErrorsNotReads) {
  const std::string zip = BuildZip({{"m/data.pkl", "abc", 0, 0}});
  EXPECT_EQ(ErrorOf(""), "no end of central directory record");
  EXPECT_EQ(ErrorOf(std::string(4096, 'x')), "no end of central directory record");
  EXPECT_EQ(ErrorOf(zip.substr(zip.size() / 2)), "the central directory lies outside the archive");
  std::string many = zip;
  many[many.size() - 12] = '\x7f';  // 127 entries in a directory of one
  EXPECT_THAT(ErrorOf(many), HasSubstr("is smaller than its"));
  std::string damaged = zip;
  damaged[damaged.find("PK\x01\x02")] = 'Q';
  EXPECT_EQ(ErrorOf(damaged), "a central directory entry is damaged");
  const std::string zip64 = BuildZip({{"m/data.pkl", "abc", 0, 0}}, true);
  EXPECT_EQ(ErrorOf(zip64.substr(zip64.size() - 22)), "no zip64 end of central directory locator");
}

// A 1.5 MB archive whose workload.json expanded to 1.5 GiB was inflated before anything looked.
TEST(EntryLimits, AWorkloadOrAnEntryThatExpandsLikeABombIsRefused) {
  const std::string workload = "advisor/workload.json";
  EXPECT_EQ(WhyEntriesTooLarge({{"m/extra/advisor/workload.json", 8, 1500, 600}}, workload), "");
  EXPECT_EQ(WhyEntriesTooLarge({{"m/extra/advisor/workload.json", 8, 1500000, 1610612736}},
                               workload),
            "entry \"m/extra/advisor/workload.json\" expands to 1610612736 bytes; at most "
            "1048576 (1 MiB) of the workload are read");
  EXPECT_EQ(WhyEntriesTooLarge({{"m/code/__torch__/m.py", 8, 100000, 1 << 30}}, workload),
            "entry \"m/code/__torch__/m.py\" expands to 1073741824 bytes from 100000, more than "
            "100 times its size in the archive (a zip bomb?)");
  // Weights are stored as they are, however large.
  EXPECT_EQ(WhyEntriesTooLarge({{"m/data/0", 0, std::uint64_t{8} << 30, std::uint64_t{8} << 30}},
                               workload),
            "");
}

}  // namespace
}  // namespace advisor
