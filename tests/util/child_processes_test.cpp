// Children never outlive advisor, interrupts reach them, and scratch folders go with an
// interrupted or abandoned run. Each test starts tests/util/advisor_like.cpp, a stand-in for
// advisor that starts a child and holds a scratch folder, and ends it the way a user or the
// kernel would.
#include "engine/util/child_processes.h"

#include <dirent.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "engine/util/remove_tree.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

// A process is gone once it is absent or a zombie; in a container nobody may reap an orphan.
bool IsGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t close_paren = text.rfind(')');
  return !stat || close_paren == std::string::npos || text.substr(close_paren + 2, 1) == "Z";
}

bool GoneWithin(pid_t pid, std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (!IsGone(pid)) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

bool Exists(const std::string& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0;
}

bool AppearsWithin(const std::string& path, std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (!Exists(path)) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::string ReadAll(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(n));
  return text;
}

// advisor_like, running, with what it said about itself.
class AdvisorLike {
 public:
  explicit AdvisorLike(std::vector<std::string> arguments) {
    int out[2];
    int err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    ChildSpec spec;
    spec.argv = {ADVISOR_LIKE_BINARY};
    spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
    spec.stdout_fd = out[1];
    spec.stderr_fd = err[1];
    std::string error;
    pid_ = StartChild(spec, error);
    close(out[1]);
    close(err[1]);
    err_fd_ = err[0];
    if (pid_ < 0) throw std::runtime_error(error);
    std::FILE* said = fdopen(out[0], "r");
    int advisor_pid = 0;
    int child_pid = 0;
    char scratch[4096] = {};
    if (std::fscanf(said, "%d %d %4095s", &advisor_pid, &child_pid, scratch) != 3) {
      std::fclose(said);
      throw std::runtime_error("advisor_like did not start: " + ReadAll(err_fd_));
    }
    std::fclose(said);
    child_ = child_pid;
    scratch_ = scratch;
  }
  ~AdvisorLike() {
    if (!status_) {
      kill(-pid_, SIGKILL);
      Wait();
    }
    close(err_fd_);
    RemoveTree(scratch_);
  }

  int Wait() {
    if (!status_) {
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      ForgetChildGroup(pid_);
      status_ = status;
    }
    return *status_;
  }
  std::string Stderr() { return ReadAll(err_fd_); }

  pid_t pid() const { return pid_; }
  pid_t child() const { return child_; }
  const std::string& scratch() const { return scratch_; }

 private:
  pid_t pid_ = -1;
  pid_t child_ = -1;
  std::string scratch_;
  int err_fd_ = -1;
  std::optional<int> status_;
};

TEST(ChildProcesses, InterruptIsForwardedThenChildrenAndScratchGoAndAdvisorDiesOfIt) {
  testing::ScratchDir dir;
  const std::string note = dir / "child-saw-the-interrupt";
  const std::string ready = dir / "trap-set";
  AdvisorLike advisor({"interrupt", "/bin/sh", "-c",
                       "trap 'echo forwarded > " + note + "; exit 0' INT; : > " + ready +
                           "; while :; do sleep 0.05; done"});
  ASSERT_TRUE(Exists(advisor.scratch() + "/result.json"));
  ASSERT_TRUE(AppearsWithin(ready, std::chrono::seconds(10)));

  kill(advisor.pid(), SIGINT);  // what Ctrl-C sends to advisor's process group, minus the child's
  const int status = advisor.Wait();
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  std::ifstream saw(note);
  std::string word;
  saw >> word;
  EXPECT_EQ(word, "forwarded") << "the child gets the interrupt before it is killed";
  EXPECT_TRUE(GoneWithin(advisor.child(), std::chrono::seconds(5)));
  EXPECT_FALSE(Exists(advisor.scratch())) << advisor.scratch();
}

TEST(ChildProcesses, TerminationKillsAChildThatIgnoresIt) {
  AdvisorLike advisor({"interrupt", "/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"});
  kill(advisor.pid(), SIGTERM);
  const int status = advisor.Wait();
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(GoneWithin(advisor.child(), std::chrono::seconds(5)));
  EXPECT_FALSE(Exists(advisor.scratch()));
}

// SIGKILL cannot be caught: the child dies of PR_SET_PDEATHSIG instead of computing on, adopted.
TEST(ChildProcesses, ChildDiesWhenAdvisorIsKilled) {
  AdvisorLike advisor({"interrupt", "sleep", "300"});
  kill(advisor.pid(), SIGKILL);
  advisor.Wait();
  EXPECT_TRUE(GoneWithin(advisor.child(), std::chrono::seconds(5)));
}

// The death signal reaches the group's leader alone: the script's own children (DataLoader
// workers, a launcher's ranks) computed on after advisor's SIGKILL.
TEST(ChildProcesses, TheChildsOwnChildrenDieWhenAdvisorIsKilled) {
  testing::ScratchDir dir;
  const std::string grandchild = dir / "grandchild-pid";
  AdvisorLike advisor({"interrupt", "/bin/sh", "-c",
                       "sleep 300 & echo $! > " + grandchild + ".tmp; mv " + grandchild + ".tmp " +
                           grandchild + "; wait"});
  ASSERT_TRUE(AppearsWithin(grandchild, std::chrono::seconds(10)));
  pid_t pid = 0;
  std::ifstream(grandchild) >> pid;
  ASSERT_GT(pid, 0);
  kill(advisor.pid(), SIGKILL);
  advisor.Wait();
  EXPECT_TRUE(GoneWithin(advisor.child(), std::chrono::seconds(5)));
  const bool gone = GoneWithin(pid, std::chrono::seconds(5));
  if (!gone) kill(pid, SIGKILL);
  EXPECT_TRUE(gone) << "the child's child " << pid;
}

// Processes that this test process adopted (it is a subreaper) and that were forked from
// advisor_like: what advisor_like left behind, alive or dead, once it has been reaped.
std::vector<pid_t> AdoptedFromAdvisorLike() {
  std::vector<pid_t> adopted;
  DIR* proc = opendir("/proc");
  while (dirent* entry = readdir(proc)) {
    const std::string pid = entry->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat_file("/proc/" + pid + "/stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)), {});
    const std::size_t name_end = stat.rfind(')');
    if (name_end == std::string::npos || stat.find("(advisor_like)") == std::string::npos) continue;
    std::istringstream rest(stat.substr(name_end + 1));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == getpid()) adopted.push_back(std::stoi(pid));
  }
  closedir(proc);
  return adopted;
}

// The guardian (group_guardian.h) is a fork of advisor with advisor's command line: an advisor
// that ends on its own, however it ends, reaps it first, so that nothing named like advisor
// outlives it (the script tests count the processes that carry their tag). This process becomes
// a subreaper, so that a guardian left behind is adopted here and found, alive or a zombie,
// without waiting for anything.
TEST(ChildProcesses, TheGuardianEndsBeforeAdvisorDoes) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  struct Ending {
    std::vector<std::string> arguments;
    int signal;
  };
  const Ending endings[] = {{{"return", "true"}, 0},
                            {{"interrupt", "sleep", "300"}, SIGTERM},
                            {{"hang", "1", "sleep", "300"}, 0}};
  for (const Ending& ending : endings) {
    AdvisorLike advisor(ending.arguments);
    if (ending.signal != 0) kill(advisor.pid(), ending.signal);
    advisor.Wait();
    const std::vector<pid_t> left = AdoptedFromAdvisorLike();
    for (pid_t pid : left) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    EXPECT_TRUE(left.empty()) << "advisor_like " << ending.arguments.front() << " left "
                              << left.size() << " process(es) of its own";
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST(ChildProcesses, StepTimeoutAbandonsTheRunWithOneLine) {
  AdvisorLike advisor({"hang", "1", "sleep", "300"});
  const int status = advisor.Wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 124);
  EXPECT_EQ(advisor.Stderr(),
            "advisor: model.pt: a training step did not finish within 1 s (--step-timeout)\n");
  EXPECT_TRUE(GoneWithin(advisor.child(), std::chrono::seconds(5)));
  EXPECT_FALSE(Exists(advisor.scratch()));
}

TEST(ChildProcesses, AMissingProgramIsOneLineAndLeavesNothingRegistered) {
  ChildSpec spec;
  spec.argv = {"advisor-no-such-program"};
  std::string error;
  EXPECT_EQ(StartChild(spec, error), -1);
  EXPECT_EQ(error, "cannot run advisor-no-such-program: No such file or directory");
  spec.argv = {"/"};
  EXPECT_EQ(StartChild(spec, error), -1);
  EXPECT_EQ(error, "cannot run /: Permission denied");
}

}  // namespace
}  // namespace advisor
