#include "engine/script/script_source.h"

#include <cstdlib>

#include "engine/script/python_command.h"
#include "engine/util/cpu_model.h"
#include "engine/util/watchdog.h"

namespace advisor {
namespace {

using nlohmann::json;

// How long advisor gives the script to exit once told to, before ending its process group.
constexpr auto kExitGrace = std::chrono::seconds(5);

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

}  // namespace

std::string ScriptName(const std::vector<std::string>& command) {
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& argument = command[i];
    if (argument == "-m" && i + 1 < command.size()) return "-m " + command[i + 1];
    if (argument.size() > 3 && argument.compare(argument.size() - 3, 3, ".py") == 0) {
      return argument;
    }
  }
  return command.empty() ? "the command" : command.front();
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
                            {"ADVISOR_PROBE_SOCKET", channel_.address()},
                            {"ADVISOR_PROBE_CONFIG", config.dump()}});

  const ProbeChannel::Wait connected =
      channel_.Accept(options_.step_timeout, [this] { return !process_->Poll(); });
  if (connected == ProbeChannel::Wait::kTimedOut) TimedOut("starting Python");
  if (connected != ProbeChannel::Wait::kMessage) Stopped("starting Python");
  hello_ = ReadHello(Await("hello", "starting Python"));
  if (hello_->world_size > 1) {
    process_->Terminate();
    throw ScriptError(name_ + " runs " + std::to_string(hello_->world_size) +
                      " ranks (WORLD_SIZE): script mode bisects one training process for now; "
                      "run one rank (torchrun --nproc_per_node 1, or python " + name_ + ")");
  }
  ProbeModel model = ReadModel(Await("model", "running its first training step"));
  modules_ = std::move(model.modules);
  description_ = std::move(model.description);
  RunInfo& run = description_.run;
  run.model = name_;
  run.command = options_.command;
  run.python = hello_->executable;
  run.python_version = hello_->python_version;
  run.advisor_version = ADVISOR_VERSION;
  run.warmup_steps = options_.warmup_steps;
  if (run.device == "cpu") run.device_name = CpuModelName();
  steps_done_ = 1;
  progress_(name_ + ": model found (" + std::to_string(modules_.size()) + " modules, " +
            run.device + ", torch " + run.torch_version + ", Python " + run.python_version + ")");
}

ScriptSource::~ScriptSource() = default;  // the process ends its group when destroyed

std::vector<StepSpan> ScriptSource::TimeSteps(int steps) {
  const int skip = warmed_up_ ? 0 : options_.warmup_steps;
  warmed_up_ = true;
  const json reply = Ask({{"op", "time"}, {"steps", steps}, {"skip", skip}}, "steps",
                         "timing " + Plural(steps, "step"), skip + steps);
  return ReadSteps(reply);
}

RecordedWindow ScriptSource::Record(const WindowRequest& request) {
  std::string doing = "profiling the baseline window";
  if (request.instrumentation == Instrumentation::kChildrenOf) {
    doing = "profiling the children of " +
            (request.parent.empty() ? std::string("the model") : request.parent);
  } else if (request.instrumentation == Instrumentation::kEveryModule) {
    doing = "naming the modules of sync and copy sites";
  }
  const json reply = Ask({{"op", "record"},
                          {"steps", request.steps},
                          {"instrument", InstrumentationName(request.instrumentation)},
                          {"parent", request.parent},
                          {"sync_phases", request.sync_phases},
                          {"device_activity", request.device_activity}},
                         "window", doing, request.steps);
  return std::move(ReadWindow(reply).window);
}

std::optional<SourceLocation> ScriptSource::SourceOf(const std::string& path,
                                                     const std::string& op) {
  if (modules_.count(path) == 0 || path.empty()) return std::nullopt;
  progress_("reading where " + path + " calls " + op + " (one step)");
  const json reply = Ask({{"op", "source"}, {"path", path}, {"steps", 1}, {"device_activity", false}},
                         "window",
                         "reading the source of " + path, 1);
  return FindLabelledSource(ReadWindow(reply), op);
}

void ScriptSource::Finish(bool let_run) {
  if (let_run) {
    progress_("done measuring; " + name_ + " trains on alone (--let-run)");
    channel_.Send({{"op", "detach"}});
    return;
  }
  try {
    channel_.Send({{"op", "exit"}});
  } catch (const std::runtime_error&) {
    // Gone already.
  }
  const auto deadline = std::chrono::steady_clock::now() + kExitGrace;
  while (!process_->Poll() && std::chrono::steady_clock::now() < deadline) {
    json ignored;
    channel_.Receive(std::chrono::milliseconds(100), [] { return false; }, ignored);
  }
  process_->Terminate();
}

int ScriptSource::WaitForScript() { return process_->Wait(); }

json ScriptSource::Ask(const json& command, const std::string& expected_type,
                       const std::string& doing, int steps) {
  // The step in progress when the command arrives warms the new instrumentation up; the
  // command's steps follow it.
  steps_needed_ = steps_done_ + 1 + steps;
  try {
    channel_.Send(command);
  } catch (const std::runtime_error&) {
    Stopped(doing);
  }
  return Await(expected_type, doing);
}

json ScriptSource::Await(const std::string& expected_type, const std::string& doing) {
  while (true) {
    json message;
    ProbeChannel::Wait wait = ProbeChannel::Wait::kClosed;
    try {
      wait = channel_.Receive(options_.step_timeout, [this] { return !process_->Poll(); }, message);
    } catch (const ProbeMessageError& error) {
      throw ScriptError(name_ + ": advisor's probe sent a bad message while " + doing + ": " +
                        error.what());
    }
    if (wait == ProbeChannel::Wait::kTimedOut) TimedOut(doing);
    if (wait != ProbeChannel::Wait::kMessage) Stopped(doing);
    try {
      const std::string type = MessageType(message);
      if (type == expected_type) return message;
      if (type == "step") {
        ++steps_done_;
      } else if (type == "ended") {
        ended_ = ReadEnded(message);
      } else if (type == "fatal") {
        process_->Terminate();
        throw ScriptError(ReadFatal(message));
      } else {
        throw ProbeMessageError("unexpected message '" + type + "'");
      }
    } catch (const ProbeMessageError& error) {
      process_->Terminate();
      throw ScriptError(name_ + ": advisor's probe sent a bad message while " + doing + ": " +
                        error.what());
    }
  }
}

void ScriptSource::TimedOut(const std::string& doing) {
  process_->Terminate();
  throw StepTimedOut(name_ + " made no training step in " +
                    std::to_string(options_.step_timeout.count()) + " s while advisor was " +
                    doing + " (--step-timeout); advisor stopped it");
}

void ScriptSource::Stopped(const std::string& doing) {
  process_->Wait();
  const std::string how = process_->DescribeExit();
  const bool failed = process_->Poll().value_or(1) != 0;
  if (!hello_ && failed) {
    throw ScriptError(name_ + " failed (" + how + ") before advisor's probe started in its "
                      "training process; its error is above");
  }
  if (!hello_) {
    throw ScriptError(name_ + " ended (" + how + ") before advisor's probe started in it: is the "
                      "command a Python that reads PYTHONPATH (not python -I, -E or -S)?");
  }
  if (modules_.empty() && failed) {
    throw ScriptError(name_ + " failed (" + how + ") before its second training step began; its "
                      "error is above");
  }
  if (ended_ && !ended_->optimizer_seen) {
    throw ScriptError(name_ + " ended (" + how + ") without stepping a torch.optim optimizer: "
                      "advisor counts one training step per optimizer step");
  }
  if (modules_.empty()) {
    throw ScriptError(name_ + " ended (" + how + ") before its second training step began: "
                      "advisor needs the first step to find the model");
  }
  throw ScriptError(name_ + (failed ? " failed (" : " ended (") + how + ") after " +
                    Plural(steps_done_, "step") +
                    " while advisor was " + doing + ", which needs " +
                    std::to_string(steps_needed_) + ": lower --steps or --warmup, or let the "
                    "script train longer");
}

}  // namespace advisor
