#include "engine/report/report_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::set<std::string> Listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

// The message WriteReportDir threw, "" when it did not throw.
std::string ErrorOf(const std::string& dir,
                    const std::vector<std::pair<std::string, std::string>>& files) {
  try {
    WriteReportDir(dir, files);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

const std::vector<std::pair<std::string, std::string>> kReport = {
    {"report.json", "{\"schema_version\": 1}\n"},
    {"report.md", "# report\n"},
    {"report.html", "<!DOCTYPE html>\n"}};

TEST(ReportDir, CreatesNestedFoldersAndWritesEveryFile) {
  ScratchDir scratch;
  const std::string dir = scratch / "runs/today/advisor-report";
  WriteReportDir(dir, kReport);
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"report.json", "report.md", "report.html"}));
  EXPECT_EQ(ReadFile(dir + "/report.json"), "{\"schema_version\": 1}\n");
  EXPECT_EQ(ReadFile(dir + "/report.md"), "# report\n");
}

TEST(ReportDir, ReplacesAnEarlierReport) {
  ScratchDir scratch;
  const std::string dir = scratch / "out/";  // a trailing slash names the same folder
  WriteReportDir(dir, {{"report.md", "old"}, {"report.json", "{}"}});
  WriteReportDir(dir, kReport);
  EXPECT_EQ(ReadFile(dir + "report.md"), "# report\n");
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"report.json", "report.md", "report.html"}));
}

TEST(ReportDir, RefusesAPathThatIsARegularFile) {
  ScratchDir scratch;
  const std::string file = scratch / "taken";
  std::ofstream(file) << "not a folder";
  try {
    ReportDirReservation reservation(file);
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "cannot use " + file + ": it exists and is not a folder");
  }
  EXPECT_EQ(ErrorOf(file, kReport), "cannot use " + file + ": it exists and is not a folder");
  EXPECT_EQ(ReadFile(file), "not a folder");
}

// Tests may run as root, whom permission bits do not stop; a path below a regular file stops
// everyone.
TEST(ReportDir, UnwritablePathFailsWithTheOsErrorAndLeavesNothing) {
  ScratchDir scratch;
  const std::string file = scratch / "taken";
  std::ofstream(file) << "x";
  const std::string dir = file + "/advisor-report";
  EXPECT_EQ(ErrorOf(dir, kReport), "cannot create folder " + dir + ": Not a directory");
  EXPECT_NO_THROW(ReportDirReservation{scratch.path()});
  EXPECT_THROW(ReportDirReservation{dir}, std::runtime_error);
  EXPECT_EQ(Listing(scratch.path()), (std::set<std::string>{"taken"}));
}

TEST(ReportDir, AReservationNotKeptRemovesTheEmptyFoldersItMade) {
  ScratchDir scratch;
  const std::string dir = scratch / "runs/today/report";
  { ReportDirReservation reservation(dir); }
  EXPECT_EQ(Listing(scratch.path()), std::set<std::string>{});

  { ReportDirReservation reservation(dir); }
  std::filesystem::create_directories(dir);  // a folder that was there before stays
  { ReportDirReservation reservation(dir); }
  EXPECT_TRUE(std::filesystem::is_directory(dir));

  const std::string kept = scratch / "kept/report";
  {
    ReportDirReservation reservation(kept);
    reservation.Keep();
  }
  EXPECT_TRUE(std::filesystem::is_directory(kept));
}

TEST(ReportDir, AFailedWriteRemovesWhatThisCallWrote) {
  ScratchDir scratch;
  const std::string dir = scratch / "out";
  fs::create_directory(dir);
  std::ofstream(dir + "/notes.txt") << "mine";
  const std::string too_long(300, 'n');  // beyond NAME_MAX on every Linux file system
  const std::string error =
      ErrorOf(dir, {{"report.md", "# report\n"}, {too_long, "x"}, {"report.json", "{}"}});
  EXPECT_EQ(error, "cannot write " + dir + "/" + too_long + ": File name too long");
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"notes.txt"}));
  EXPECT_EQ(ReadFile(dir + "/notes.txt"), "mine");
}

TEST(ReportDir, AFailedRenameRemovesTheFilesAlreadyInPlace) {
  ScratchDir scratch;
  const std::string dir = scratch / "out";
  fs::create_directories(dir + "/report.json");  // a folder where report.json must go
  const std::string error = ErrorOf(dir, kReport);
  EXPECT_EQ(error, "cannot write " + dir + "/report.json: Is a directory");
  // report.md and report.html were renamed before report.json and are gone again.
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"report.json"}));
}

TEST(ReportDir, AFailureRemovesTheFoldersThisCallCreated) {
  ScratchDir scratch;
  const std::string dir = scratch / "new/advisor-report";
  EXPECT_NE(ErrorOf(dir, {{std::string(300, 'n'), "x"}}), "");
  EXPECT_FALSE(fs::exists(scratch / "new"));
}

TEST(ReportDir, RejectsNamesThatAreNotPlainFileNames) {
  ScratchDir scratch;
  for (const char* name : {"", ".", "..", "../escape.json", "sub/report.json"}) {
    EXPECT_THROW(WriteReportDir(scratch.path(), {{name, "x"}}), std::invalid_argument) << name;
  }
  EXPECT_TRUE(Listing(scratch.path()).empty());
}

}  // namespace
}  // namespace advisor
