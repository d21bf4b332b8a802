// Private folders: what a SIGKILLed advisor left in $TMPDIR goes when the next one makes its own.
#include "engine/util/scratch_paths.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/report/scratch_dir.h"
#include "tests/util/scoped_environment.h"

namespace advisor {
namespace {

bool Exists(const std::string& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0;
}

// A pid no process has now: a child's, once it has been reaped.
pid_t GonePid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

TEST(PrivateTempDir, RemovesTheFoldersOfItsPrefixWhoseAdvisorIsGone) {
  testing::ScratchDir tmp;
  const testing::ScopedEnvironment tmpdir("TMPDIR", tmp.path());
  const std::string stale = tmp / ("advisor-probe-" + std::to_string(GonePid()) + "-aaaaaa");
  const std::string live = tmp / ("advisor-probe-" + std::to_string(getppid()) + "-bbbbbb");
  const std::string other_kind = tmp / ("advisor-autotest-" + std::to_string(GonePid()) + "-c");
  const std::string not_ours = tmp / "advisor-probe-notapid-dddddd";
  for (const std::string& folder : {stale, live, other_kind, not_ours}) {
    ASSERT_EQ(mkdir(folder.c_str(), 0700), 0) << folder;
    std::ofstream(folder + "/socket-left") << "x";
  }
  const std::string linked = tmp / ("advisor-probe-" + std::to_string(GonePid()) + "-eeeeee");
  ASSERT_EQ(symlink(live.c_str(), linked.c_str()), 0);
  {
    const PrivateTempDir made("advisor-probe-");
    EXPECT_EQ(made.path().rfind(tmp / ("advisor-probe-" + std::to_string(getpid()) + "-"), 0), 0u)
        << made.path();
    EXPECT_FALSE(Exists(stale)) << "its advisor is gone";
    EXPECT_TRUE(Exists(live + "/socket-left")) << "its advisor still runs";
    EXPECT_TRUE(Exists(other_kind)) << "another prefix";
    EXPECT_TRUE(Exists(not_ours)) << "no pid in its name";
    EXPECT_TRUE(Exists(linked)) << "a link is not a folder of advisor's";
  }
}

}  // namespace
}  // namespace advisor
