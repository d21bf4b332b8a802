// The probe's socket: a folder of advisor's own holds it, under /tmp where $TMPDIR is too deep
// for a Unix socket's path (108 bytes), as in a worktree's build folder.
#include "engine/script/probe_channel.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "tests/util/scoped_environment.h"

namespace advisor {
namespace {

TEST(ProbeListener, ATmpdirTooDeepForASocketFallsBackToTmp) {
  const PrivateTempDir scratch("advisor-listener-test-");
  std::string deep = scratch.path();
  while (deep.size() < 120) {
    deep += "/a-folder-deep-enough";
    ASSERT_EQ(mkdir(deep.c_str(), 0700), 0) << deep;
  }
  const testing::ScopedEnvironment tmpdir("TMPDIR", deep);
  {
    const ProbeListener listener;
    EXPECT_EQ(listener.address().rfind("/tmp/advisor-probe-", 0), 0u) << listener.address();
    sockaddr_un where{};
    where.sun_family = AF_UNIX;
    std::memcpy(where.sun_path, listener.address().c_str(), listener.address().size() + 1);
    const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_EQ(connect(probe, reinterpret_cast<sockaddr*>(&where), sizeof where), 0)
        << std::strerror(errno);
    close(probe);
  }
}

}  // namespace
}  // namespace advisor
