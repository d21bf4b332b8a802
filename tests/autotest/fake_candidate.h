// A fake door for the autotest's tests: its candidate processes are /bin/sh scripts that write a
// result file (or crash, hang, or write garbage), and its numerics check is whatever the test
// says, so that the A/B driver and the autotest can be tested without a model.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/autotest/candidate_runner.h"
#include "tests/autotest/test_files.h"

namespace advisor::testing {

// Writes `dir`/worker.sh. It is run as `worker.sh RESULT_PATH SIDE` with SIDE "baseline" or the
// candidate's id, appends "SIDE $ADVISOR_TEST_KNOB" to `dir`/order.log, then runs the body for
// its side. The bodies may call `write_result MS PEAK_MB SAMPLES LOSS SITES`, which writes three
// steps of MS each, or `write_steps "MS,MS,..."`, which writes those steps (8 samples, loss 1),
// and read `$round`: how many times this side has run before, counted in `dir`/SIDE.count.
inline std::string WriteFakeCandidate(const std::string& dir, const std::string& baseline_body,
                                      const std::string& candidate_body) {
  return WriteScript(dir + "/worker.sh", R"(result="$1"
write_result() {
  printf '{"step_ms":[%s,%s,%s],"peak_memory_mb":%s,"samples_per_step":%s,"loss":%s,"sites":[%s]}' \
    "$1" "$1" "$1" "$2" "$3" "$4" "$5" > "$result"
}
write_steps() {
  printf '{"step_ms":[%s],"peak_memory_mb":null,"samples_per_step":8,"loss":1,"sites":[]}' \
    "$1" > "$result"
}
echo "$2 ${ADVISOR_TEST_KNOB:-unset}" >> ")" +
                                             dir + R"(/order.log"
count=")" + dir + R"(/$2.count"
round=$(cat "$count" 2>/dev/null || echo 0)
echo $((round + 1)) > "$count"
if [ "$2" = baseline ]; then
)" + baseline_body + R"(
else
)" + candidate_body + R"(
fi)");
}

// Runs WriteFakeCandidate's `script` for each benchmark run and answers each numerics check with
// `check`; without one, it is a door with no numerics check. Counts both.
class FakeCandidateRunner : public CandidateRunner {
 public:
  using Check = std::function<NumericsVerdict(const CandidateSpec&)>;

  explicit FakeCandidateRunner(std::string script, Check check = nullptr)
      : script_(std::move(script)), check_(std::move(check)) {}

  CandidateCommand BenchmarkCommand(const CandidateSpec* candidate,
                                    const std::string& result_path) const override {
    ++benchmark_runs_;
    return {{"/bin/sh", script_, result_path, candidate ? candidate->id : "baseline"}, {}};
  }

  NumericsVerdict CheckNumerics(const CandidateSpec& candidate) override {
    checked_.push_back(candidate.id);
    if (!check_) return {NumericsVerdict::Outcome::kNotChecked, {}, "", {}};
    return check_(candidate);
  }

  std::optional<CandidateCommand> BlocksCommand(const std::vector<CandidateSpec>& candidates,
                                                const BlockDesign& design,
                                                const std::string& result_path) const override {
    if (blocks_script_.empty()) return std::nullopt;
    std::string ids;
    for (const CandidateSpec& candidate : candidates)
      ids += (ids.empty() ? "" : ",") + candidate.id;
    blocks_runs_.push_back(ids);
    last_design_ = design;
    return CandidateCommand{{"/bin/sh", blocks_script_, result_path}, {}};
  }

  std::string SharedByRuns() const override { return shared_; }

  void set_check(Check check) { check_ = std::move(check); }
  void set_shared(std::string shared) { shared_ = std::move(shared); }
  // Makes this a door that measures switchable candidates in blocks: `script` is run as
  // `script RESULT_PATH` for each blocks run and writes its BlocksResult.
  void set_blocks_script(std::string script) { blocks_script_ = std::move(script); }
  // Each blocks run's candidate ids, comma-separated.
  const std::vector<std::string>& blocks_runs() const { return blocks_runs_; }
  const BlockDesign& last_design() const { return last_design_; }
  int benchmark_runs() const { return benchmark_runs_; }
  // The ids of the candidates checked, in order.
  const std::vector<std::string>& checked() const { return checked_; }

 private:
  std::string script_;
  std::string shared_;
  std::string blocks_script_;
  mutable std::vector<std::string> blocks_runs_;
  mutable BlockDesign last_design_;
  Check check_;
  mutable int benchmark_runs_ = 0;
  std::vector<std::string> checked_;
};

}  // namespace advisor::testing
