#include "engine/report/report_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

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

using Files = std::vector<std::pair<std::string, std::string>>;

void WriteReport(const std::string& dir, const Files& files) { ReportDir(dir).Write(files); }

// The message a run into `dir` writing `files` failed with, "" when it did not fail.
std::string ErrorOf(const std::string& dir, const Files& files) {
  try {
    WriteReport(dir, files);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

const Files kReport = {{"report.json", "{\"schema_version\": 1}\n"},
                       {"report.md", "# report\n"},
                       {"report.html", "<!DOCTYPE html>\n"}};

TEST(ReportDir, CreatesNestedFoldersAndWritesEveryFile) {
  ScratchDir scratch;
  const std::string dir = scratch / "runs/today/advisor-report";
  WriteReport(dir, kReport);
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"report.json", "report.md", "report.html"}))
      << "neither the staging folder nor the lock stays";
  EXPECT_EQ(ReadFile(dir + "/report.json"), "{\"schema_version\": 1}\n");
  EXPECT_EQ(ReadFile(dir + "/report.md"), "# report\n");
}

TEST(ReportDir, ReplacesAnEarlierReport) {
  ScratchDir scratch;
  const std::string dir = scratch / "out/";  // a trailing slash names the same folder
  WriteReport(dir, {{"report.md", "old"}, {"report.json", "{}"}});
  WriteReport(dir, kReport);
  EXPECT_EQ(ReadFile(dir + "report.md"), "# report\n");
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"report.json", "report.md", "report.html"}));
}

TEST(ReportDir, RefusesAPathThatIsARegularFile) {
  ScratchDir scratch;
  const std::string file = scratch / "taken";
  std::ofstream(file) << "not a folder";
  EXPECT_EQ(ErrorOf(file, kReport), "cannot use " + file + ": it exists and is not a folder");
  EXPECT_EQ(ReadFile(file), "not a folder");
}

TEST(ReportDir, RefusesAnObjectStoreUrl) {
  EXPECT_EQ(ErrorOf("s3://bucket/run", kReport),
            "--out s3://bucket/run: this command writes its report to a local folder (advisor "
            "analyze writes to s3:// too)");
  EXPECT_FALSE(std::filesystem::exists("s3:"));
}

// Tests may run as root, whom permission bits do not stop; a path below a regular file stops
// everyone.
TEST(ReportDir, UnwritablePathFailsWithTheOsErrorAndLeavesNothing) {
  ScratchDir scratch;
  const std::string file = scratch / "taken";
  std::ofstream(file) << "x";
  const std::string dir = file + "/advisor-report";
  EXPECT_EQ(ErrorOf(dir, kReport), "cannot create folder " + dir + ": Not a directory");
  EXPECT_EQ(Listing(scratch.path()), (std::set<std::string>{"taken"}));
}

// A read-only --out was found only after all the profiling. /proc/self is a folder nobody may
// write into, root included.
TEST(ReportDir, AFolderThatCannotBeWrittenFailsBeforeTheRun) {
  try {
    ReportDir dir("/proc/self");
    FAIL() << "readied a read-only folder";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()).rfind("cannot write to /proc/self: ", 0), 0u)
        << error.what();
  }
}

TEST(ReportDir, FoldersMadeForARunThatWroteNothingAreRemoved) {
  ScratchDir scratch;
  const std::string dir = scratch / "runs/today/report";
  { ReportDir unused(dir); }
  EXPECT_EQ(Listing(scratch.path()), std::set<std::string>{});

  fs::create_directories(dir);  // a folder that was there before stays
  { ReportDir unused(dir); }
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_EQ(Listing(dir), std::set<std::string>{});
}

// `--out a/../a/./sub/..` left a stray empty a/sub.
TEST(ReportDir, TakesThePathLexicallyAndLeavesNoStrayFolder) {
  ScratchDir scratch;
  ReportDir dir(scratch / "a/../a/./sub/..");
  EXPECT_EQ(dir.path(), scratch / "a");
  dir.Write(kReport);
  EXPECT_EQ(Listing(scratch.path()), std::set<std::string>{"a"});
  EXPECT_FALSE(fs::exists(scratch / "a/sub"));
}

TEST(ReportDir, AFailedWriteLeavesTheFolderAsItWas) {
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

// With report.json a folder beside an old report, the failed run deleted report.md, report.html
// and trace.json of the old one.
TEST(ReportDir, AFolderInTheWayLeavesThePreviousReportWhole) {
  ScratchDir scratch;
  const std::string dir = scratch / "out";
  WriteReport(dir, {{"report.md", "old md"}, {"report.html", "old html"}, {"trace.json", "[]"}});
  fs::create_directories(dir + "/report.json");
  const std::string error = ErrorOf(dir, {{"report.md", "new"},
                                          {"report.html", "new"},
                                          {"trace.json", "new"},
                                          {"report.json", "{}"}});
  EXPECT_EQ(error, "cannot write " + dir + "/report.json: Is a directory");
  EXPECT_EQ(Listing(dir),
            (std::set<std::string>{"report.json", "report.md", "report.html", "trace.json"}));
  EXPECT_EQ(ReadFile(dir + "/report.md"), "old md");
  EXPECT_EQ(ReadFile(dir + "/report.html"), "old html");
  EXPECT_EQ(ReadFile(dir + "/trace.json"), "[]");
}

// A link planted at a temporary name of the old writer, or at a report file, made advisor
// overwrite the file it pointed at and left report.html a link.
TEST(ReportDir, LinksInTheFolderAreNeverFollowed) {
  ScratchDir scratch;
  const std::string dir = scratch / "out";
  fs::create_directory(dir);
  const std::string victim = scratch / "victim";
  std::ofstream(victim) << "precious";
  const std::string planted = dir + "/.report.html.tmp." + std::to_string(getpid());
  fs::create_symlink(victim, planted);
  fs::create_symlink(victim, dir + "/report.html");
  WriteReport(dir, kReport);
  EXPECT_EQ(ReadFile(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(dir + "/report.html"));
  EXPECT_EQ(ReadFile(dir + "/report.html"), "<!DOCTYPE html>\n");
  EXPECT_FALSE(fs::is_symlink(planted)) << "a dead run's temporary name is removed";
}

// Anyone who can write to the report folder can rename the staging folder away and put a link to
// their own folder in its place: the report's files, and the previous report's second names,
// went through the link.
TEST(ReportDir, ALinkInTheStagingFoldersPlaceRedirectsNothing) {
  ScratchDir scratch;
  const std::string dir = scratch / "out";
  WriteReport(dir, kReport);
  const std::string elsewhere = scratch / "elsewhere";
  fs::create_directory(elsewhere);
  ReportDir run(dir);
  for (const std::string& name : Listing(dir)) {
    if (name.rfind(kStagingPrefix, 0) != 0) continue;
    fs::rename(dir + "/" + name, scratch / "moved-staging");
    fs::create_directory_symlink(elsewhere, dir + "/" + name);
  }
  run.Write({{"report.json", "{\"schema_version\": 2}\n"}});
  EXPECT_TRUE(Listing(elsewhere).empty());
  EXPECT_EQ(ReadFile(dir + "/report.json"), "{\"schema_version\": 2}\n");
}

// Two runs into one --out mixed their files.
TEST(ReportDir, ASecondRunIntoTheFolderIsRefusedNamingTheFirst) {
  ScratchDir scratch;
  const std::string dir = scratch / "out";
  ReportDir first(dir);
  try {
    ReportDir second(dir);
    FAIL() << "two runs hold one report folder";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()),
              dir + ": another advisor run (pid " + std::to_string(getpid()) +
                  ") is writing its report here; wait for it or choose another --out");
  }
  first.Write(kReport);
}

// A run killed while writing left ".trace.json.tmp.<pid>" (27 MB) that later runs never removed.
TEST(ReportDir, TheNextRunRemovesWhatDeadRunsLeft) {
  ScratchDir scratch;
  const std::string dir = scratch / "out";
  fs::create_directories(dir + "/.advisor-staging-Ab12Cd");
  std::ofstream(dir + "/.advisor-staging-Ab12Cd/trace.json") << "[";
  std::ofstream(dir + "/.trace.json.tmp.4242") << "[";
  std::ofstream(dir + "/.advisor.lock") << "4242\n";  // its lock file, no longer locked
  std::ofstream(dir + "/.trace.json.tmp.mine") << "a user's file";
  std::ofstream(dir + "/notes.txt") << "mine";
  WriteReport(dir, kReport);
  EXPECT_EQ(Listing(dir), (std::set<std::string>{".trace.json.tmp.mine", "notes.txt",
                                                 "report.json", "report.md", "report.html"}));
}

TEST(ReportDir, RejectsNamesThatAreNotPlainFileNames) {
  ScratchDir scratch;
  for (const char* name : {"", ".", "..", "../escape.json", "sub/report.json"}) {
    EXPECT_THROW(WriteReport(scratch.path(), {{name, "x"}}), std::invalid_argument) << name;
  }
  EXPECT_TRUE(Listing(scratch.path()).empty());
}

}  // namespace
}  // namespace advisor
