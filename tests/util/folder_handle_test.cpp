// Files named relative to a folder held open: links refused or replaced, never followed.
#include "engine/util/folder_handle.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

std::string ErrorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(FolderHandle, ASubfolderThatIsALinkOrAFileIsRefused) {
  const ScratchDir scratch;
  const FolderHandle folder = FolderHandle::Open(scratch.path());
  fs::create_directory_symlink(scratch.path(), scratch.path() + "/link");
  std::ofstream(scratch.path() + "/file") << "x";
  EXPECT_EQ(ErrorOf([&] { folder.Subfolder("link"); }),
            "cannot use " + scratch.path() +
                "/link: it is a symbolic link, which advisor does not follow");
  EXPECT_EQ(ErrorOf([&] { folder.Subfolder("file"); }),
            "cannot use " + scratch.path() + "/file: it is not a folder");
  EXPECT_EQ(folder.Subfolder("made").path(), scratch.path() + "/made");
  EXPECT_TRUE(fs::is_directory(scratch.path() + "/made"));
}

TEST(FolderHandle, ReadingRefusesLinksAndFifosWithoutBlocking) {
  const ScratchDir scratch;
  const FolderHandle folder = FolderHandle::Open(scratch.path());
  std::ofstream(scratch.path() + "/real") << "content";
  fs::create_symlink(scratch.path() + "/real", scratch.path() + "/link");
  ASSERT_EQ(mkfifo((scratch.path() + "/fifo").c_str(), 0600), 0);
  EXPECT_EQ(folder.ReadFile("real", 100), "content");
  EXPECT_FALSE(folder.ReadFile("absent", 100).has_value());
  EXPECT_EQ(ErrorOf([&] { folder.ReadFile("link", 100); }),
            scratch.path() + "/link: it is a symbolic link, which advisor does not follow");
  EXPECT_EQ(ErrorOf([&] { folder.ReadFile("fifo", 100); }),
            scratch.path() + "/fifo: not a regular file");
  EXPECT_EQ(ErrorOf([&] { folder.ReadFile("real", 3); }),
            scratch.path() + "/real: larger than 3 bytes");
}

TEST(FolderHandle, WritingNeverFollowsALinkAtTheName) {
  const ScratchDir scratch;
  const FolderHandle folder = FolderHandle::Open(scratch.path());
  std::ofstream(scratch.path() + "/victim") << "precious";
  fs::create_symlink(scratch.path() + "/victim", scratch.path() + "/name");
  EXPECT_EQ(folder.WriteNewFile("name", "new"), EEXIST);
  EXPECT_EQ(folder.Remove("name"), 0);
  EXPECT_EQ(folder.ReadFile("victim", 100), "precious") << "the link went, not its target";
  const std::string made = folder.MakeUniqueFolder(".staging-");
  EXPECT_EQ(made.size(), std::string(".staging-").size() + 6);
  EXPECT_EQ(fs::status(scratch.path() + "/" + made).permissions(), fs::perms::owner_all);
}

}  // namespace
}  // namespace advisor
