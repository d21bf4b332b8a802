#include "engine/autotest/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/autotest/test_files.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;

ProcessSpec Shell(const std::string& script) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.timeout = std::chrono::seconds(20);
  return spec;
}

// A process is gone once it is absent or a zombie; in a container nobody may reap an orphan.
bool IsGone(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t close_paren = text.rfind(')');
  return !stat || close_paren == std::string::npos || text.substr(close_paren + 2, 1) == "Z";
}

TEST(Process, CapturesOutputExitStatusAndAddedEnvironment) {
  ProcessSpec spec = Shell("echo \"$ADVISOR_TEST_KNOB\"; echo oops >&2; exit 3");
  spec.env["ADVISOR_TEST_KNOB"] = "on";
  const ProcessOutcome outcome = RunProcess(spec);
  EXPECT_TRUE(outcome.started);
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_FALSE(outcome.signal.has_value());
  EXPECT_FALSE(outcome.Succeeded());
  EXPECT_EQ(outcome.stdout_text, "on\n");
  EXPECT_EQ(outcome.stderr_tail, "oops\n");
  EXPECT_EQ(outcome.Describe(), "exit status 3");
}

TEST(Process, SucceedsOnExitZero) {
  const ProcessOutcome outcome = RunProcess(Shell("exit 0"));
  EXPECT_TRUE(outcome.Succeeded());
}

TEST(Process, ReportsACrashBySignal) {
  const ProcessOutcome segv = RunProcess(Shell("kill -SEGV $$"));
  EXPECT_EQ(segv.signal, SIGSEGV);
  EXPECT_FALSE(segv.exit_code.has_value());
  EXPECT_THAT(segv.Describe(), HasSubstr("killed by signal 11"));

  const ProcessOutcome abort = RunProcess(Shell("kill -ABRT $$"));
  EXPECT_EQ(abort.signal, SIGABRT);
}

TEST(Process, KillsAHangingProcessGroupAtTheTimeout) {
  testing::ScratchDir dir;
  const std::string pid_file = dir / "sleeper.pid";
  // The shell waits on a child of its own: killing only the shell would leave the sleeper.
  ProcessSpec spec = Shell("sleep 30 & echo $! > " + pid_file + "; wait");
  spec.timeout = std::chrono::seconds(1);
  const auto start = std::chrono::steady_clock::now();
  const ProcessOutcome outcome = RunProcess(spec);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  EXPECT_TRUE(outcome.timed_out);
  EXPECT_FALSE(outcome.Succeeded());
  EXPECT_LT(elapsed_s, 3.0);
  EXPECT_THAT(outcome.Describe(), HasSubstr("timed out after 1."));
  const std::string pid_text = testing::ReadFile(pid_file);
  const std::string sleeper = pid_text.substr(0, pid_text.find('\n'));
  ASSERT_FALSE(sleeper.empty());
  // SIGKILL is delivered asynchronously; give the kernel a moment to finish the sleeper off.
  for (int i = 0; i < 100 && !IsGone(sleeper); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(IsGone(sleeper)) << "the hanging worker's child survived";
}

TEST(Process, KeepsOnlyTheTailOfAFloodOfErrors) {
  ProcessSpec spec = Shell(
      "i=0; while [ $i -lt 5000 ]; do echo \"line $i of noise\" >&2; "
      "i=$((i+1)); done; echo 'the last words' >&2; exit 1");
  spec.stderr_tail_bytes = 200;
  const ProcessOutcome outcome = RunProcess(spec);
  EXPECT_LE(outcome.stderr_tail.size(), 200u);
  EXPECT_THAT(outcome.stderr_tail, ::testing::EndsWith("line 4999 of noise\nthe last words\n"));
  EXPECT_THAT(outcome.stderr_tail, ::testing::StartsWith("line "));  // cut at a line start
}

TEST(Process, BoundsStdout) {
  ProcessSpec spec = Shell("printf '0123456789'");
  spec.stdout_limit_bytes = 4;
  const ProcessOutcome outcome = RunProcess(spec);
  EXPECT_EQ(outcome.stdout_text, "0123");
  EXPECT_TRUE(outcome.stdout_truncated);
}

TEST(Process, AMissingProgramDoesNotStart) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/advisor-worker"};
  const ProcessOutcome outcome = RunProcess(spec);
  EXPECT_FALSE(outcome.started);
  EXPECT_EQ(outcome.Describe(),
            "cannot run /nonexistent/advisor-worker: No such file or directory");
}

}  // namespace
}  // namespace advisor
