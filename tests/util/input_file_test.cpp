// The one way advisor opens a file someone else wrote: its kind is checked before it is opened,
// so a FIFO is refused by name instead of blocking forever.
#include "engine/util/input_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

std::string ErrorReading(const std::string& path, std::uint64_t max_bytes = 100) {
  try {
    ReadInputFile(path, max_bytes);
  } catch (const InputFileError& error) {
    return error.what();
  }
  return "";
}

TEST(InputFile, ReadsARegularFileWithinItsBound) {
  testing::ScratchDir dir;
  std::ofstream(dir / "a.json") << "{\"a\": 1}";
  EXPECT_EQ(ReadInputFile(dir / "a.json", 8), "{\"a\": 1}");
  EXPECT_EQ(ErrorReading(dir / "a.json", 7), dir / "a.json" + ": 8 bytes is too large (at most 7)");
  std::ofstream(dir / "empty.json").flush();
  EXPECT_EQ(ReadInputFile(dir / "empty.json", 0), "");
}

// Without the check, opening the FIFO waits for a writer that never comes (the test times out).
TEST(InputFile, AFifoIsRefusedByNameWithoutWaitingForAWriter) {
  testing::ScratchDir dir;
  ASSERT_EQ(::mkfifo((dir / "trace.json").c_str(), 0600), 0);
  EXPECT_EQ(ErrorReading(dir / "trace.json"),
            dir / "trace.json" + ": is a named pipe (FIFO), not a regular file");
  try {
    InputFile file(dir / "trace.json");
    FAIL() << "opened a FIFO";
  } catch (const InputFileError& error) {
    EXPECT_EQ(error.problem(), "is a named pipe (FIFO), not a regular file");
  }
}

TEST(InputFile, SocketsDevicesFoldersAndLinkLoopsAreRefusedByWhatTheyAre) {
  testing::ScratchDir dir;
  const std::string socket_path = dir / "s.json";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  socket_path.copy(address.sun_path, socket_path.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(ErrorReading(socket_path), socket_path + ": is a socket, not a regular file");
  ::close(fd);

  EXPECT_EQ(ErrorReading("/dev/zero"), "/dev/zero: is a device, not a regular file");
  EXPECT_EQ(ErrorReading(dir.path()), dir.path() + ": is a directory");
  std::filesystem::create_symlink(dir / "loop", dir / "loop");
  EXPECT_EQ(ErrorReading(dir / "loop"), dir / "loop" + ": is a symbolic link loop");
  std::filesystem::create_symlink(dir / "absent", dir / "dangling");
  EXPECT_EQ(ErrorReading(dir / "dangling"),
            dir / "dangling" + ": is a symbolic link to a missing file");
  EXPECT_EQ(ErrorReading(dir / "absent"), dir / "absent" + ": no such file");
}

}  // namespace
}  // namespace advisor
