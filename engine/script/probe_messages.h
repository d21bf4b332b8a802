// The messages the script probe sends (docs/script-mode.md, "The protocol"), read into engine
// structs. Each reader checks the message's fields and throws ProbeMessageError naming the first
// problem: a probe message is input from another process, never trusted.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/out_of_memory_failure.h"
#include "engine/model/training_state.h"
#include "engine/script/timeline_codec.h"
#include "engine/window/window_source.h"

namespace advisor {

// A count of items, batches or steps from the probe: at most 2^30, far above any window's, and it
// fits an int.
inline constexpr std::int64_t kMaxProbeCount = std::int64_t{1} << 30;
// The frameworks an "ended" message may name, and each name's length ("lightning 2.6.6").
inline constexpr std::size_t kMaxFrameworks = 8;
inline constexpr std::size_t kMaxFrameworkBytes = 64;

// "hello": the interpreter started with the probe in it.
struct ProbeHello {
  std::string python_version;
  std::string executable;
  long long pid = 0;
  int rank = 0;        // torch.distributed's RANK, 0 without one
  int world_size = 1;  // WORLD_SIZE, 1 without one
  int local_world_size = 1;  // LOCAL_WORLD_SIZE: the ranks on this machine; WORLD_SIZE without one
  int group_rank = 0;        // GROUP_RANK: this machine's node among the job's; 0 without one
  int group_world_size = 1;  // GROUP_WORLD_SIZE: the job's nodes; 1 without one
  std::string host;          // the machine's host name, for the report
};

// "model": the first step is done and the model is known.
struct ProbeModel {
  SourceDescription description;  // run.mode kScript; torch, device, input, data settings
  ModuleTree modules;
};

// "ended": the script is exiting.
struct ProbeEnded {
  int steps = 0;              // steps it completed
  bool optimizer_seen = false;
  bool model_seen = false;
  bool raised = false;  // an uncaught Python exception ended it: its traceback is on stderr
  // The training frameworks the script had imported ("lightning 2.6.6", "transformers 5.24"):
  // what advisor names when it could not follow the training (docs/script-mode.md).
  std::vector<std::string> frameworks;
  // The uncaught exception was torch's out-of-memory error: where and what the allocator held
  // (steps_done and during are advisor's to fill), and the training state the probe measured.
  std::optional<OutOfMemoryFailure> out_of_memory;
  std::optional<TrainingState> training_state;
  // With out_of_memory, what the model message would have said: torch, device, batch and dtype
  // (a script can run out of memory before its first step is done).
  RunInfo run;
};

// A window's reply: its steps and events (and, where advisor asked, the input stage measured over
// its steps), and for a source window the text of each labelled line.
struct ProbeWindow {
  RecordedWindow window;
  std::map<std::string, std::string> lines;  // "file:line" -> the line's text
};

// A hello whose rank or world size is out of range: the script's environment (RANK, WORLD_SIZE,
// set by a launcher or by hand) is the user's to fix, not a fault of advisor's probe. Its text
// follows the script's name: "was started with RANK=7 and WORLD_SIZE=3: ...".
class RankEnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The message's "type", or ProbeMessageError.
std::string MessageType(const nlohmann::json& message);
// How errors name a message: `probe message "window"` (`probe message` without a usable type).
std::string ProbeMessageName(const nlohmann::json& message);

ProbeHello ReadHello(const nlohmann::json& message);
ProbeModel ReadModel(const nlohmann::json& message);
ProbeEnded ReadEnded(const nlohmann::json& message);
std::string ReadFatal(const nlohmann::json& message);
// A timing window's steps, on the clock the probe says it read ("clock").
TimedSteps ReadSteps(const nlohmann::json& message);
ProbeWindow ReadWindow(const nlohmann::json& message);

// A source window's step with its labels (probes/python/site/advisor_probe/sources.py): each
// "advisor.source@FILE:LINE" range around a torch call names its line, with the line's text
// where the window sent one; each "advisor.call" range is a call of the labelled module.
LabelledSteps ReadLabelledSteps(ProbeWindow window);

}  // namespace advisor
