#include "engine/script/script_source.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "engine/script/compile_message.h"
#include "engine/script/python_command.h"
#include "engine/util/cpu_model.h"
#include "engine/util/printf.h"
#include "engine/util/watchdog.h"

namespace advisor {
namespace {

using nlohmann::json;

// " (it imported lightning 2.6.6, transformers 5.24)": the training frameworks a script that
// advisor could not follow had imported; "" where it imported none.
std::string FrameworksClause(const std::vector<std::string>& frameworks) {
  if (frameworks.empty()) return "";
  std::string names;
  for (const std::string& framework : frameworks) {
    names += (names.empty() ? "" : ", ") + framework;
  }
  return " (it imported " + names + ")";
}

// How long advisor gives the script to exit once told to, before ending its process group.
constexpr auto kExitGrace = std::chrono::seconds(5);
// How long a launcher has to end its other ranks and exit once one rank has ended (torchrun's
// agent looks at its ranks every 5 s), before advisor ends its process group.
constexpr auto kLauncherGrace = std::chrono::seconds(15);
// How long ranks that end together at the end of training take to close their channels, at most.
constexpr auto kRanksEndTogether = std::chrono::seconds(1);

const char* InstrumentationName(Instrumentation instrumentation) {
  switch (instrumentation) {
    case Instrumentation::kNone: return "none";
    case Instrumentation::kChildrenOf: return "children";
    case Instrumentation::kEveryModule: return "every";
  }
  return "none";
}

std::string Plural(int count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// "input stage: 6 batches of 40.1 ms in 2 DataLoader worker processes (busy 97%); heaviest:
// RandomDilation, 75% of a batch (train.py:39)"
std::string DescribeStage(const InputStageProfile& stage, int workers) {
  std::string text = Printf("input stage: %d batch%s of %.1f ms ", stage.batches,
                            stage.batches == 1 ? "" : "es", stage.batch_ms);
  text += workers > 0
              ? Printf("in %d DataLoader worker process%s", workers, workers == 1 ? "" : "es")
              : std::string("on the main process (0 workers)");
  if (stage.worker_busy_share) text += Printf(" (busy %.0f%%)", 100 * *stage.worker_busy_share);
  if (stage.pieces.empty()) return text;
  const InputStagePiece& heaviest = stage.pieces.front();
  text += "; heaviest: " + heaviest.name + Printf(", %.0f%% of a batch", 100 * heaviest.share);
  if (heaviest.source) {
    const std::string& file = heaviest.source->file;
    text += " (" + file.substr(file.rfind('/') + 1) + ":" + std::to_string(heaviest.source->line) +
            ")";
  }
  return text;
}

}  // namespace

std::string ScriptName(const std::vector<std::string>& command) {
  const std::vector<std::string> script = ScriptPart(command);
  if (script.empty()) return "the command";
  return script.front() == "-m" && script.size() > 1 ? "-m " + script[1] : script.front();
}

ScriptSource::ScriptSource(const ScriptOptions& options, const Progress& progress)
    : options_(options), progress_(progress), name_(ScriptName(options.command)) {
  if (const std::string why = WhyNotPython(options_.command); !why.empty()) throw ScriptError(why);
  if (options_.probe_dir.empty()) {
    throw ScriptError("advisor's script probe is not built (build/probe): run scripts/setup.sh");
  }
  std::string python_path = options_.probe_dir + "/site";
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing) {
    python_path += std::string(":") + existing;
  }
  const json config = {{"library", options_.probe_dir + "/libadvisor_probe.so"},
                       {"build_info", options_.probe_dir + "/build_info.json"}};
  progress_("starting " + name_ + " with advisor's probe inside");
  process_ = std::make_unique<ScriptProcess>(
      options_.command, std::map<std::string, std::string>{
                            {"PYTHONPATH", python_path},
                            {"ADVISOR_PROBE_SOCKET", listener_.address()},
                            {"ADVISOR_PROBE_CONFIG", config.dump()}});
  ConnectRanks();

  std::vector<ProbeModel> models;
  for (Rank& rank : ranks_) {
    const std::string doing = "running its first training step";
    const json model = Await(rank, "model", doing);
    try {
      models.push_back(ReadModel(model));
    } catch (const ProbeMessageError& error) {
      BadMessage(rank, doing, error);
    }
    rank.steps_done = 1;
  }
  for (std::size_t r = 1; r < models.size(); ++r) {
    if (models[r].modules.size() != models[0].modules.size() ||
        !std::equal(models[r].modules.begin(), models[r].modules.end(), models[0].modules.begin(),
                    [](const auto& a, const auto& b) { return a.first == b.first; })) {
      process_->Terminate();
      throw ScriptError(name_ + ": rank " + std::to_string(ranks_[r].hello.rank) +
                        " trains another model than rank " + std::to_string(ranks_[0].hello.rank) +
                        " (their module paths differ): advisor bisects ranks that train one model");
    }
  }
  modules_ = std::move(models[0].modules);
  description_ = std::move(models[0].description);
  RunInfo& run = description_.run;
  NameTheRun(ranks_[0].hello, run);
  progress_(name_ + ": model found (" + std::to_string(modules_.size()) + " modules, " +
            run.device + ", torch " + run.torch_version + ", Python " + run.python_version +
            (ranks_.size() > 1 ? ", " + Plural(static_cast<int>(ranks_.size()), "rank") : "") +
            ")");
}

ScriptSource::Rank ScriptSource::Connect(const std::string& doing) {
  Rank rank;
  const ProbeChannel::Wait connected = listener_.Accept(
      options_.step_timeout, [this] { return !process_->Poll(); }, rank.channel);
  if (connected == ProbeChannel::Wait::kTimedOut && !ranks_.empty() &&
      ranks_[0].hello.group_world_size > 1) {
    process_->Terminate();
    throw ScriptError(name_ + ": " + std::to_string(ranks_.size()) + " of this node's " +
                      std::to_string(ranks_[0].hello.local_world_size) + " ranks started "
                      "advisor's probe in " + std::to_string(options_.step_timeout.count()) +
                      " s (--step-timeout)");
  }
  if (connected == ProbeChannel::Wait::kTimedOut && !ranks_.empty()) {
    std::string missing;
    for (int number = 0; number < ranks_[0].hello.world_size; ++number) {
      if (std::none_of(ranks_.begin(), ranks_.end(),
                       [&](const Rank& other) { return other.hello.rank == number; })) {
        missing += (missing.empty() ? "" : ", ") + std::to_string(number);
      }
    }
    process_->Terminate();
    throw ScriptError(name_ + ": rank " + missing + " of " +
                      std::to_string(ranks_[0].hello.world_size) + " did not start advisor's "
                      "probe in " + std::to_string(options_.step_timeout.count()) +
                      " s (--step-timeout): advisor bisects the ranks of one job that a launcher "
                      "starts on this machine (torchrun --standalone)");
  }
  if (connected == ProbeChannel::Wait::kTimedOut) TimedOut(doing);
  if (connected != ProbeChannel::Wait::kMessage) Stopped(doing, nullptr);
  const json hello = Await(rank, "hello", doing);
  try {
    rank.hello = ReadHello(hello);
  } catch (const RankEnvironmentError& error) {
    process_->Terminate();
    throw ScriptError(name_ + " " + error.what());
  } catch (const ProbeMessageError& error) {
    BadMessage(rank, doing, error);
  }
  return rank;
}

// The first probe to connect says how many ranks the job runs, how many of them on this machine
// and which node this machine is; a launcher's ranks connect in any order.
void ScriptSource::ConnectRanks() {
  ranks_.push_back(Connect("starting Python"));
  const ProbeHello first = ranks_[0].hello;
  if (first.local_world_size < first.world_size && first.group_world_size < 2) {
    process_->Terminate();
    throw ScriptError(
        name_ + " runs " + std::to_string(first.world_size) + " ranks, " +
        std::to_string(first.local_world_size) +
        " of them on this machine "
        "(WORLD_SIZE, LOCAL_WORLD_SIZE), but does not say which node this is "
        "(GROUP_RANK, GROUP_WORLD_SIZE): advisor merges several nodes under torchrun");
  }
  if (first.world_size > 1) {
    progress_(name_ + " runs " + std::to_string(first.world_size) + " ranks" +
              (first.group_world_size > 1
                   ? ", " + std::to_string(first.local_world_size) + " on this machine (node " +
                         std::to_string(first.group_rank) + " of " +
                         std::to_string(first.group_world_size) + ")"
                   : std::string()) +
              ": waiting for each rank's probe");
  }
  while (static_cast<int>(ranks_.size()) < first.local_world_size) {
    Rank rank = Connect("starting its ranks (" + std::to_string(ranks_.size()) + " of " +
                        std::to_string(first.local_world_size) + " connected)");
    const bool repeated = std::any_of(ranks_.begin(), ranks_.end(), [&](const Rank& other) {
      return other.hello.rank == rank.hello.rank;
    });
    const bool same_job = rank.hello.world_size == first.world_size &&
                          rank.hello.local_world_size == first.local_world_size &&
                          rank.hello.group_rank == first.group_rank &&
                          rank.hello.group_world_size == first.group_world_size;
    if (!same_job || repeated) {
      process_->Terminate();
      throw ScriptError(name_ + ": a probe said it is rank " + std::to_string(rank.hello.rank) +
                        " of " + std::to_string(rank.hello.world_size) + " on node " +
                        std::to_string(rank.hello.group_rank) + ", but " +
                        (repeated ? "that rank has connected already"
                                  : "the first said rank " + std::to_string(first.rank) + " of " +
                                        std::to_string(first.world_size) + " on node " +
                                        std::to_string(first.group_rank)) +
                        ": advisor measures the ranks of one job");
    }
    ranks_.push_back(std::move(rank));
  }
  listener_.Close();  // whoever else connects later finds nobody listening
  std::sort(ranks_.begin(), ranks_.end(),
            [](const Rank& a, const Rank& b) { return a.hello.rank < b.hello.rank; });
  std::vector<int> numbers;
  for (const Rank& rank : ranks_) numbers.push_back(rank.hello.rank);
  rank_windows_ = RankWindows(std::move(numbers), first.world_size);
}

JobPlace ScriptSource::Place() const {
  const ProbeHello& hello = ranks_.front().hello;
  return {hello.group_rank, hello.group_world_size, hello.world_size, hello.host};
}

int ScriptSource::StepsDone() const {
  int steps_done = 0;
  for (const Rank& rank : ranks_) steps_done = std::max(steps_done, rank.steps_done);
  return steps_done;
}

ScriptSource::~ScriptSource() = default;  // the process ends its group when destroyed

TimedSteps ScriptSource::TimeSteps(int steps) {
  const int skip = warmed_up_ ? 0 : options_.warmup_steps;
  warmed_up_ = true;
  const std::string doing = "timing " + Plural(steps, "step");
  const std::vector<json> replies =
      Ask({{"op", "time"}, {"steps", steps}, {"skip", skip}}, "steps", doing, skip + steps);
  std::vector<std::vector<StepSpan>> spans;
  // The job's steps are timed as truly as its least truly timed rank's (the enum's order).
  StepTiming timing = StepTiming::kDeviceEvents;
  for (std::size_t r = 0; r < replies.size(); ++r) {
    try {
      TimedSteps rank = ReadSteps(replies[r]);
      timing = std::min(timing, rank.timing);
      spans.push_back(std::move(rank.steps));
      if (r == 0) {
        NoteLoader(replies[r], spans.back().size());
        NoteCompile(replies[r]);
      }
    } catch (const ProbeMessageError& error) {
      BadMessage(ranks_[r], doing, error);
    }
  }
  try {
    return {rank_windows_.TimedSteps(std::move(spans)), timing};
  } catch (const std::runtime_error& error) {
    OutOfStep(doing, error);
  }
}

RecordedWindow ScriptSource::Record(const WindowRequest& request) {
  std::string doing = "profiling the baseline window";
  if (request.instrumentation == Instrumentation::kChildrenOf) {
    doing = "profiling the children of " +
            (request.parent.empty() ? std::string("the model") : request.parent);
  } else if (request.instrumentation == Instrumentation::kEveryModule) {
    doing = "naming the modules of sync and copy sites";
  }
  // The input stage is measured once, over the baseline's steps: those the report's data wait
  // comes from.
  const bool input_stage = request.instrumentation == Instrumentation::kNone && !stage_measured_;
  stage_measured_ = stage_measured_ || input_stage;
  const std::vector<json> replies =
      Ask({{"op", "record"},
           {"steps", request.steps},
           {"instrument", InstrumentationName(request.instrumentation)},
           {"parent", request.parent},
           {"sync_phases", request.sync_phases},
           {"device_activity", request.device_activity},
           {"input_stage", input_stage}},
          "window", doing, request.steps);
  std::vector<RecordedWindow> windows;
  std::vector<CompiledGraphSources> compiled_graphs;
  for (std::size_t r = 0; r < replies.size(); ++r) {
    try {
      windows.push_back(std::move(ReadWindow(replies[r]).window));
      if (r == 0) {
        NoteLoader(replies[r], windows.back().timeline.steps.size());
        NoteCompile(replies[r]);
        // The baseline runs the model as the script compiled it: no region of advisor's. Every
        // rank compiled the same model: the first rank's tables serve the rank decided on.
        if (request.instrumentation == Instrumentation::kNone) {
          compiled_graphs = ReadProvenance(replies[r]).value_or(compiled_graphs);
        }
      }
    } catch (const ProbeMessageError& error) {
      BadMessage(ranks_[r], doing, error);
    }
  }
  RecordedWindow window;
  try {
    window = rank_windows_.Decide(request.instrumentation, std::move(windows),
                                  request.follows_the_levels);
  } catch (const std::runtime_error& error) {
    OutOfStep(doing, error);
  }
  window.compiled_graphs = std::move(compiled_graphs);
  if (window.input_stage && description_.input) {
    progress_(DescribeStage(*window.input_stage, description_.input->workers.value_or(0)));
  }
  return window;
}

void ScriptSource::NoteLoader(const json& reply, std::size_t steps) {
  if (std::optional<LoaderRecords> records = ReadLoaderRecords(reply)) {
    loader_windows_.push_back({std::move(*records), static_cast<int>(steps)});
  }
}

void ScriptSource::NoteCompile(const json& reply) {
  if (std::optional<CompileReport> compile = ReadCompileReport(reply)) {
    compile_ = std::move(compile);
  }
}

std::optional<SourceLocation> ScriptSource::SourceOf(const std::string& path,
                                                     const std::string& op) {
  if (modules_.count(path) == 0 || path.empty()) return std::nullopt;
  progress_("reading where " + path + " calls " + op + " (one step)");
  // Every rank runs the step (they train in lockstep); the op may run on some ranks only (the
  // straggler's extra work), so the first rank that ran it names its line.
  for (const LabelledSteps& step : AskLabelled({false, path}, 1)) {
    if (std::optional<SourceLocation> source = LineOfOp(step, op)) return source;
  }
  return std::nullopt;
}

std::vector<LabelledSteps> ScriptSource::RecordLabelled(const LabelScope& scope) {
  if (!scope.loss && (modules_.count(scope.path) == 0 || scope.path.empty())) return {};
  progress_("reading the lines of " + (scope.loss ? std::string("the loss") : scope.path) + " (" +
            std::to_string(kLabelledSteps) + " steps)");
  return AskLabelled(scope, kLabelledSteps);
}

std::vector<LabelledSteps> ScriptSource::AskLabelled(const LabelScope& scope, int steps_asked) {
  json command = {{"op", "source"}, {"steps", steps_asked}, {"device_activity", false}};
  if (scope.loss) {
    command["span"] = "loss";
  } else {
    command["path"] = scope.path;
  }
  const std::string doing = "reading the lines of " +
                            (scope.loss ? std::string("the loss") : scope.path);
  std::vector<LabelledSteps> steps;
  const std::vector<json> replies = Ask(std::move(command), "window", doing, steps_asked);
  for (std::size_t r = 0; r < replies.size(); ++r) {
    try {
      steps.push_back(ReadLabelledSteps(ReadWindow(replies[r])));
      // A source window inside a compiled model compiles regions too (compile.regional).
      if (r == 0) NoteCompile(replies[r]);
    } catch (const ProbeMessageError& error) {
      BadMessage(ranks_[r], doing, error);
    }
  }
  return steps;
}

void ScriptSource::Finish(bool let_run) {
  if (let_run) {
    progress_("done measuring; " + name_ + " trains on alone (--let-run)");
    for (Rank& rank : ranks_) rank.channel->Send({{"op", "detach"}});
    return;
  }
  for (Rank& rank : ranks_) {
    try {
      rank.channel->Send({{"op", "exit"}});
    } catch (const std::runtime_error&) {
      // Gone already.
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + kExitGrace;
  while (!process_->Poll() && std::chrono::steady_clock::now() < deadline) {
    for (Rank& rank : ranks_) {
      json ignored;
      rank.channel->Receive(std::chrono::milliseconds(100 / static_cast<int>(ranks_.size())),
                            [] { return false; }, ignored);
    }
  }
  process_->Terminate();
}

int ScriptSource::WaitForScript() { return process_->Wait(); }

std::vector<json> ScriptSource::Ask(json command, const std::string& expected_type,
                                    const std::string& doing, int steps) {
  // The step in progress when the command arrives warms the new instrumentation up; the
  // command's steps follow it. Each rank is told the first step's index, so that all measure
  // the same steps.
  steps_needed_ = StepsDone() + 1 + steps;
  command["first"] = steps_needed_ - command.value("steps", 0);
  for (Rank& rank : ranks_) {
    try {
      rank.channel->Send(command);
    } catch (const std::runtime_error&) {
      Stopped(doing, &rank);
    }
  }
  std::vector<json> replies;
  for (Rank& rank : ranks_) replies.push_back(Await(rank, expected_type, doing));
  return replies;
}

json ScriptSource::Await(Rank& rank, const std::string& expected_type, const std::string& doing) {
  while (true) {
    json message;
    ProbeChannel::Wait wait = ProbeChannel::Wait::kClosed;
    // Another rank that ends waits on nothing here: this one may block in a collective with it
    // until the step timeout.
    Rank* closed = nullptr;
    const auto keep_waiting = [&] {
      if (process_->Poll()) return false;
      closed = ClosedRank(rank);
      return closed == nullptr;
    };
    try {
      wait = rank.channel->Receive(options_.step_timeout, keep_waiting, message);
    } catch (const ProbeMessageError& error) {
      throw ScriptError(Who(&rank) + ": advisor's probe sent a bad message while " + doing +
                        ": " + error.what());
    }
    if (wait == ProbeChannel::Wait::kTimedOut) TimedOut(doing);
    if (wait != ProbeChannel::Wait::kMessage) Stopped(doing, closed != nullptr ? closed : &rank);
    try {
      const std::string type = MessageType(message);
      if (type == expected_type) return message;
      if (type == "step") {
        ++rank.steps_done;
      } else if (type == "ended") {
        rank.ended = ReadEnded(message);
      } else if (type == "fatal") {
        process_->Terminate();
        throw ScriptError(Who(&rank) + ": " + ReadFatal(message));
      } else {
        throw ProbeMessageError("unexpected message '" + type + "'");
      }
    } catch (const ProbeMessageError& error) {
      BadMessage(rank, doing, error);
    }
  }
}

void ScriptSource::BadMessage(const Rank& rank, const std::string& doing,
                              const ProbeMessageError& error) {
  process_->Terminate();
  throw ScriptError(Who(&rank) + ": advisor's probe sent a bad message while " + doing + ": " +
                    error.what());
}

std::string ScriptSource::Who(const Rank* rank) const {
  if (rank == nullptr || ranks_.size() < 2) return name_;
  return name_ + " (rank " + std::to_string(rank->hello.rank) + ")";
}

void ScriptSource::OutOfStep(const std::string& doing, const std::runtime_error& error) {
  process_->Terminate();
  throw ScriptError(name_ + ": " + error.what() + " while advisor was " + doing +
                    ": advisor bisects ranks that step together (DistributedDataParallel)");
}

void ScriptSource::TimedOut(const std::string& doing) {
  process_->Terminate();
  throw StepTimedOut(name_ + " made no training step in " +
                    std::to_string(options_.step_timeout.count()) + " s while advisor was " +
                    doing + " (--step-timeout); advisor stopped it");
}

ScriptSource::Rank* ScriptSource::ClosedRank(const Rank& awaited) {
  for (Rank& rank : ranks_) {
    if (&rank != &awaited && rank.channel->PeerClosed()) return &rank;
  }
  return nullptr;
}

void ScriptSource::Drain(Rank& rank) {
  while (true) {
    json message;
    try {
      if (rank.channel->Receive(kExitGrace, [] { return true; }, message) !=
          ProbeChannel::Wait::kMessage) {
        return;
      }
      const std::string type = MessageType(message);
      if (type == "step") ++rank.steps_done;
      if (type == "ended") rank.ended = ReadEnded(message);
    } catch (const std::runtime_error&) {
      return;  // a bad last message: how the rank ended stays unknown
    }
  }
}

const ScriptSource::Rank* ScriptSource::RankThatLeftEarly() {
  const auto settled = std::chrono::steady_clock::now() + kRanksEndTogether;
  while (std::chrono::steady_clock::now() < settled &&
         std::any_of(ranks_.begin(), ranks_.end(),
                     [](const Rank& rank) { return !rank.channel->PeerClosed(); })) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const Rank* clean = nullptr;
  bool another_did_not_end_cleanly = false;
  for (Rank& rank : ranks_) {
    if (rank.channel->PeerClosed()) Drain(rank);
    const bool ended_cleanly = rank.ended && !rank.ended->raised;
    if (ended_cleanly && clean == nullptr) clean = &rank;
    another_did_not_end_cleanly = another_did_not_end_cleanly || !ended_cleanly;
  }
  return another_did_not_end_cleanly ? clean : nullptr;
}

std::string ScriptSource::WhatIsAbove(const Rank* rank) const {
  if (rank != nullptr && rank->ended && rank->ended->raised) return "; its error is above";
  if (rank != nullptr && rank->ended) return ", with no Python error";
  return ", with no Python error: it called os._exit, or a signal or a crash ended it";
}

void ScriptSource::NameTheRun(const ProbeHello& hello, RunInfo& run) const {
  run.model = name_;
  run.command = options_.command;
  run.python = hello.executable;
  run.python_version = hello.python_version;
  run.advisor_version = ADVISOR_VERSION;
  run.warmup_steps = options_.warmup_steps;
  if (run.device == "cpu") run.device_name = CpuModelName();
}

void ScriptSource::ThrowIfOutOfMemory(const Rank& rank, const std::string& how,
                                      const std::string& doing) {
  if (!rank.ended || !rank.ended->out_of_memory) return;
  const ProbeEnded& ended = *rank.ended;
  OutOfMemoryFailure failure = *ended.out_of_memory;
  failure.steps_done = ended.steps;
  failure.during = doing;
  // Before the model's first step ended, the probe's own account stands for the model message.
  RunInfo run = modules_.empty() ? ended.run : description_.run;
  if (modules_.empty()) {
    run.mode = Door::kScript;
    NameTheRun(rank.hello, run);
  }
  std::optional<TrainingState> state =
      ended.training_state ? ended.training_state : description_.training_state;
  failure.live = LiveAtFailure(failure, state);
  throw ScriptOutOfMemory(Who(&rank) + " ran out of memory (" + how + ") after " +
                              Plural(ended.steps, "step") + " while advisor was " + doing,
                          std::move(failure), std::move(run), std::move(state));
}

void ScriptSource::Stopped(const std::string& doing, const Rank* rank) {
  if (ranks_.size() > 1) {
    if (const Rank* left = RankThatLeftEarly()) {
      // The launcher ends the job when a rank fails, not when one ends cleanly: the others would
      // wait for it in their next collective until they time out.
      process_->Terminate();
      throw ScriptError(Who(left) + " ended cleanly after " + Plural(left->ended->steps, "step") +
                        " while the other ranks were still training and advisor was " + doing +
                        ", which needs " + std::to_string(steps_needed_) +
                        ": advisor needs every rank to train until it has measured; advisor "
                        "stopped the others");
    }
    // One rank has ended: its launcher notices (torchrun within seconds) and ends the others; a
    // launcher that does not is ended with them.
    const auto deadline = std::chrono::steady_clock::now() + kLauncherGrace;
    while (!process_->Poll() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    process_->Terminate();
  } else {
    process_->Wait();
  }
  const std::string how = process_->DescribeExit();
  const bool failed = process_->Poll().value_or(1) != 0;
  // Several ranks end together, one of them first, its error above: the launcher's status stands
  // for the job.
  if (ranks_.empty() && failed) {
    throw ScriptError(name_ + " failed (" + how + ") before advisor's probe started in its "
                      "training process; its error is above");
  }
  if (ranks_.empty()) {
    throw ScriptError(name_ + " ended (" + how + ") before advisor's probe started in it: is the "
                      "command a Python that reads PYTHONPATH (not python -I, -E or -S)?");
  }
  if (static_cast<int>(ranks_.size()) < ranks_[0].hello.local_world_size) {
    throw ScriptError(name_ + (failed ? " failed (" : " ended (") + how + ") while advisor was " +
                      doing + ": not every rank's probe connected; advisor bisects the ranks of "
                      "one job that a launcher starts on this machine (torchrun --standalone)");
  }
  const Rank* stopped = rank != nullptr ? rank : &ranks_[0];
  for (Rank& each : ranks_) {
    if (each.channel->PeerClosed() && !each.ended) Drain(each);
    // Under a launcher, the rank whose error ended the job, where one raised one.
    if (each.ended && each.ended->raised && !(stopped->ended && stopped->ended->raised)) {
      stopped = &each;
    }
  }
  ThrowIfOutOfMemory(*stopped, how, doing);
  if (modules_.empty() && failed) {
    throw ScriptError(name_ + " failed (" + how + ") before its second training step began" +
                      WhatIsAbove(stopped));
  }
  const std::optional<ProbeEnded>& ended = stopped->ended;
  // A framework advisor could not follow is named: its trainer is where to look.
  const std::string frameworks = ended ? FrameworksClause(ended->frameworks) : "";
  if (ended && !ended->optimizer_seen) {
    throw ScriptError(name_ + " ended (" + how + ") without stepping a torch.optim optimizer" +
                      frameworks +
                      ": advisor counts one training step per optimizer step (transformers' "
                      "Trainer, Lightning and accelerate step one; docs/script-mode.md)");
  }
  if (modules_.empty()) {
    throw ScriptError(name_ + " ended (" + how + ") before its second training step began" +
                      frameworks + ": advisor needs the first step to find the model");
  }
  const int steps_done = stopped->steps_done;
  if (failed) {
    throw ScriptError(name_ + " failed (" + how + ") after " + Plural(steps_done, "step") +
                      " while advisor was " + doing + WhatIsAbove(stopped));
  }
  throw ScriptError(name_ + " ended (" + how + ") after " + Plural(steps_done, "step") +
                    " while advisor was " + doing + ", which needs " +
                    std::to_string(steps_needed_) + ": lower --steps or --warmup, or let the "
                    "script train longer");
}

}  // namespace advisor
