// Fake `advisor worker`s for the benchmark tests: /bin/sh scripts that write a result file (or
// crash, hang, or write garbage) so the A/B driver can be tested without a model.
#pragma once

#include <string>

#include "engine/autotest/worker_command.h"
#include "tests/autotest/test_files.h"

namespace advisor::testing {

// Writes `dir`/worker.sh. It is run as `worker.sh RESULT_PATH SIDE` with SIDE "baseline" or the
// candidate's id, appends "SIDE $ADVISOR_TEST_KNOB" to `dir`/order.log, then runs the body for
// its side. The bodies may call `write_result MS PEAK_MB SAMPLES LOSS SITES`, which writes three
// steps of MS each, or `write_steps "MS,MS,..."`, which writes those steps (8 samples, loss 1),
// and read `$round`: how many times this side has run before, counted in `dir`/SIDE.count.
inline std::string WriteFakeWorker(const std::string& dir, const std::string& baseline_body,
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

inline WorkerCommandBuilder FakeWorkerCommand(const std::string& script) {
  return [script](const CandidateSpec* candidate, const std::string& result_path) {
    return WorkerCommand{{"/bin/sh", script, result_path, candidate ? candidate->id : "baseline"},
                         {}};
  };
}

}  // namespace advisor::testing
