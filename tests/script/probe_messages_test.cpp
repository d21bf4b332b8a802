// Reading what the probe sends: the model's description, windows, and where a labelled op is in
// the user's code; malformed messages are refused with the field named.
#include "engine/script/probe_messages.h"

#include <gtest/gtest.h>

#include "engine/model/out_of_memory_failure.h"
#include "engine/script/python_command.h"
#include "engine/script/script_source.h"

namespace advisor {
namespace {

using nlohmann::json;

json Model() {
  return {{"type", "model"},
          {"torch", "2.11.0+cu130"},
          {"device", "cuda"},
          {"device_name", "NVIDIA H200"},
          {"deterministic", true},
          {"allow_tf32", true},
          {"cudnn_benchmark", false},
          {"modules",
           {{{"path", ""},
             {"type", "timm.VisionTransformer"},
             {"parameters", 86},
             {"has_forward", true},
             {"calls_submodules", true},
             {"opaque", ""}},
            {{"path", "blocks"},
             {"type", "torch.nn.Sequential"},
             {"parameters", 80},
             {"has_forward", true},
             {"calls_submodules", true},
             {"opaque", ""}},
            {{"path", "blocks.0"},
             {"type", "timm.Block"},
             {"parameters", 80},
             {"has_forward", true},
             {"calls_submodules", true},
             {"opaque", "compiled with torch.compile: measured as one leaf"},
             {"compiled", true}}}},
          {"input", {{"batch_size", 128}, {"dtype", "float32"}}},
          {"data", {{"workers", 8}, {"pin_memory", true}}},
          {"device_limits",
           {{"sm_count", 132},
            {"max_threads_per_sm", 2048},
            {"regs_per_sm", 65536},
            {"smem_per_sm", 233472},
            {"max_warps_per_sm", 64},
            {"major", 9}}}};
}

TEST(ProbeMessages, ReadsTheModel) {
  const ProbeModel model = ReadModel(Model());
  const RunInfo& run = model.description.run;
  EXPECT_EQ(run.mode, Door::kScript);
  EXPECT_EQ(run.torch_version, "2.11.0+cu130");
  EXPECT_EQ(run.device, "cuda");
  EXPECT_EQ(run.batch_size, 128);
  EXPECT_EQ(run.deterministic, true);
  EXPECT_EQ(run.allow_tf32, std::optional<bool>(true));
  EXPECT_EQ(run.cudnn_benchmark, std::optional<bool>(false));
  ASSERT_TRUE(model.description.input.has_value());
  EXPECT_EQ(model.description.input->workers, 8);
  EXPECT_EQ(model.description.input->pin_memory, true);
  ASSERT_TRUE(model.description.device_limits.has_value());
  EXPECT_EQ(model.description.device_limits->max_blocks_per_sm, 32);
  ASSERT_EQ(model.modules.size(), 3u);
  EXPECT_EQ(model.modules.at("blocks.0").opaque_reason,
            "compiled with torch.compile: measured as one leaf");
  EXPECT_TRUE(model.modules.at("blocks.0").compiled);
  EXPECT_FALSE(model.modules.at("blocks").compiled) << "absent: not compiled whole";
}

TEST(ProbeMessages, CudaMathSettingsAreOfCudaRunsAndOptional) {
  json cpu = Model();
  cpu["device"] = "cpu";
  EXPECT_FALSE(ReadModel(cpu).description.run.allow_tf32.has_value()) << "no TF32 on a CPU";
  json silent = Model();
  silent.erase("allow_tf32");
  silent.erase("cudnn_benchmark");
  const RunInfo run = ReadModel(silent).description.run;
  EXPECT_FALSE(run.allow_tf32.has_value());
  EXPECT_FALSE(run.cudnn_benchmark.has_value());
}

std::string ModelError(const json& message) {
  try {
    ReadModel(message);
  } catch (const ProbeMessageError& error) {
    return error.what();
  }
  return "";
}

TEST(ProbeMessages, RefusesAModelThatDoesNotHoldTogether) {
  json bad = Model();
  bad["modules"][2]["path"] = "head.0";
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'modules' has 'head.0' without its parent");
  bad = Model();
  bad["modules"].erase(0);
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'modules' has no root module (path \"\")");
  bad = Model();
  bad["modules"][1]["path"] = "blocks\x1b[2J";
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'modules[1].path' must be a string of at most 4096 "
            "bytes without control characters, got \"blocks\\u001b[2J\"");
  bad = Model();
  bad["allow_tf32"] = "yes";
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'allow_tf32' must be true or false, got \"yes\"");
  bad = Model();
  bad["device"] = "tpu";
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'device' must be one of \"cpu\", \"cuda\", got "
            "\"tpu\"");
  bad = Model();
  bad["modules"][1]["parameters"] = -1;
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'modules[1].parameters' must be an integer >= 0, got "
            "-1");
  bad = Model();
  bad.erase("input");
  EXPECT_EQ(ModelError(bad), "probe message \"model\": field 'input' is missing");
}

TEST(ProbeMessages, ReadsTheTrainingStateAndRefusesOneThatDoesNotAddUp) {
  json message = Model();
  EXPECT_FALSE(ReadModel(message).description.training_state.has_value()) << "none sent";
  message["training_state"] = {{"parameter_bytes", 344 << 20},
                               {"gradient_bytes", 344 << 20},
                               {"optimizer_state_bytes", 688 << 20},
                               {"wrapper", "DistributedDataParallel"},
                               {"sharding_strategy", ""},
                               {"micro_steps", 4},
                               {"synced_micro_steps", 4}};
  const std::optional<TrainingState> state = ReadModel(message).description.training_state;
  ASSERT_TRUE(state.has_value());
  EXPECT_DOUBLE_EQ(state->parameter_mb, 344.0);
  EXPECT_DOUBLE_EQ(state->optimizer_state_mb, 688.0);
  EXPECT_EQ(state->wrapper, "DistributedDataParallel");
  EXPECT_EQ(state->micro_steps, 4);
  EXPECT_EQ(state->synced_micro_steps, 4);

  json bad = message;
  bad["training_state"]["synced_micro_steps"] = 5;
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'training_state.synced_micro_steps' must not exceed "
            "micro_steps (4)");
  bad = message;
  bad["training_state"]["gradient_bytes"] = -1;
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'training_state.gradient_bytes' must be an integer "
            ">= 0, got -1");
  bad = message;
  bad["training_state"].erase("wrapper");
  EXPECT_EQ(ModelError(bad), "probe message \"model\": field 'training_state.wrapper' is missing");
  bad = message;
  bad["training_state"] = "DDP";
  EXPECT_EQ(ModelError(bad),
            "probe message \"model\": field 'training_state' must be an object, got \"DDP\"");
}

TEST(ProbeMessages, ReadsTheLinesAndModuleCallsOfASourceWindow) {
  // A source window: the module's call, its lines inside labels naming them.
  ProbeWindow window;
  Timeline& timeline = window.window.timeline;
  timeline.steps = {StepOfPhases(0, 0, 0, 100, 200, 300)};
  // Its fields named, not placed: OpEvent's order has changed before.
  const auto op = [](const char* name, OpScope scope, std::int16_t depth, TimeNs start,
                     TimeNs end) {
    OpEvent event;
    event.name = name;
    event.scope = scope;
    event.depth = depth;
    event.thread = 1;
    event.start_ns = start;
    event.end_ns = end;
    return event;
  };
  timeline.ops = {op("advisor.call", OpScope::kUser, 0, 5, 65),
                  op("advisor.source@/home/me/model.py:41", OpScope::kUser, 1, 10, 20),
                  op("aten::linear", OpScope::kForward, 2, 11, 19),
                  op("advisor.source@/home/me/model.py:57", OpScope::kUser, 1, 30, 60),
                  op("aten::gather", OpScope::kForward, 2, 31, 59),
                  op("advisor.source@no-line-number", OpScope::kUser, 1, 61, 62)};
  timeline.SetSequence(2, {1, 0});
  timeline.SetSequence(4, {2, 0});
  window.lines["/home/me/model.py:57"] = "x = torch.gather(x, 1, index)";
  const LabelledSteps step = ReadLabelledSteps(window);
  EXPECT_EQ(step.scope_calls, 1);
  ASSERT_EQ(step.labels.size(), 2u) << "a label without its line is none";
  EXPECT_EQ(step.labels.at(1).line, 41);
  EXPECT_EQ(step.labels.at(1).text, "") << "no text sent for it";
  const std::optional<SourceLocation> source = LineOfOp(step, "aten::gather");
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->file, "/home/me/model.py");
  EXPECT_EQ(source->line, 57);
  EXPECT_EQ(source->text, "x = torch.gather(x, 1, index)");
  EXPECT_FALSE(LineOfOp(step, "aten::bmm").has_value());
}

TEST(ProbeMessages, ATimingWindowSaysWhichClockTimedItsSteps) {
  const json steps =
      json::parse(R"([[4, 100, 250, [[1, 100, 180], [2, 180, 230], [3, 230, 250]]]])");
  const std::vector<std::pair<std::string, StepTiming>> clocks = {
      {"host", StepTiming::kHostClock},
      {"host_synchronised", StepTiming::kHostClockSynced},
      {"cuda_events", StepTiming::kDeviceEvents}};
  for (const auto& [clock, timing] : clocks) {
    const TimedSteps read = ReadSteps({{"type", "steps"}, {"steps", steps}, {"clock", clock}});
    EXPECT_EQ(read.timing, timing) << clock;
    ASSERT_EQ(read.steps.size(), 1u);
    EXPECT_EQ(read.steps[0].index, 4);
    EXPECT_EQ(read.steps[0].TimeIn(Phase::kForward), 80);
  }
  EXPECT_THROW(ReadSteps({{"type", "steps"}, {"steps", steps}}), ProbeMessageError)
      << "a timing without its clock is not to be trusted as either";
  EXPECT_THROW(ReadSteps({{"type", "steps"}, {"steps", steps}, {"clock", "gpu"}}),
               ProbeMessageError);
}

TEST(ProbeMessages, ReadsAWindowsLossCheckAndRefusesOneThatDoesNotAddUp) {
  const json window = {{"type", "window"},
                       {"steps", json::array()},
                       {"events", {{"ops", json::array()}, {"markers", json::array()}}},
                       {"memory", nullptr},
                       {"losses", {{"steps", 5}, {"non_finite", 2}}}};
  const ProbeWindow read = ReadWindow(window);
  ASSERT_TRUE(read.window.losses.has_value());
  EXPECT_EQ(read.window.losses->steps, 5);
  EXPECT_EQ(read.window.losses->non_finite, 2);

  json without = window;
  without.erase("losses");
  EXPECT_FALSE(ReadWindow(without).window.losses.has_value()) << "an older probe sends none";
  for (const json& bad : {json{{"steps", 2}, {"non_finite", 3}}, json{{"steps", -1}}, json("5"),
                          json{{"steps", 1e12}, {"non_finite", 0}}}) {
    json message = window;
    message["losses"] = bad;
    EXPECT_THROW(ReadWindow(message), ProbeMessageError) << bad.dump();
  }
}

TEST(ProbeMessages, ReadsWhatTheAllocatorHeldAsTheWindowBegan) {
  json window = {{"type", "window"},
                 {"steps", json::array()},
                 {"events", {{"ops", json::array()}, {"markers", json::array()}}},
                 {"memory",
                  {{"peak_allocated_mb", 1600.0},
                   {"peak_reserved_mb", 2048.0},
                   {"device_total_mb", 143771.0},
                   {"alloc_retries", 0},
                   {"at_start", {{"device", 1}, {"allocated_bytes", 104857600}}}}}};
  const ProbeWindow read = ReadWindow(window);
  ASSERT_TRUE(read.window.timeline.memory_at_start.has_value());
  EXPECT_EQ(read.window.timeline.memory_at_start->device, 1);
  EXPECT_EQ(read.window.timeline.memory_at_start->bytes, 104857600);

  window["memory"]["at_start"]["allocated_bytes"] = -1;
  EXPECT_THROW(ReadWindow(window), ProbeMessageError);
  window["memory"] = nullptr;  // a CPU's window: no counter, nothing read
  EXPECT_FALSE(ReadWindow(window).window.timeline.memory_at_start.has_value());
}

TEST(ScriptCommand, NamesTheScriptInMessages) {
  EXPECT_EQ(ScriptName({"python", "-u", "train.py", "--lr", "0.1"}), "train.py");
  EXPECT_EQ(ScriptName({"python3", "-m", "pkg.train"}), "-m pkg.train");
  EXPECT_EQ(ScriptName({"torchrun", "--nproc_per_node", "2"}), "torchrun");
}

TEST(ScriptCommand, OnlyPythonIsRun) {
  EXPECT_EQ(WhyNotPython({"/bin/true", "train.py"}),
            "/bin/true is not Python: advisor bisect -- runs a command that starts Python "
            "(python train.py, python -m pkg.train, a launcher such as torchrun)");
  EXPECT_EQ(WhyNotPython({"no-such-program-here"}), "no-such-program-here: no such program");
  EXPECT_NE(WhyNotPython({}).find("no command after --"), std::string::npos);
  EXPECT_EQ(WhyNotPython({ADVISOR_TEST_PYTHON, "train.py"}), "");
  EXPECT_EQ(
      WhyNotPython({"env", "CUDA_VISIBLE_DEVICES=1", "-u", "HOME", ADVISOR_TEST_PYTHON, "x.py"}),
      "")
      << "env's settings are skipped";
  EXPECT_EQ(WhyNotPython({"env", "A=1", "/bin/true"}).rfind("/bin/true is not Python", 0), 0u);
  EXPECT_EQ(WhyNotPython({"env", "A=1"}), "env runs no program after its settings");
}

TEST(ScriptCommand, CodeOnTheCommandLineOrStandardInputIsRefused) {
  EXPECT_EQ(
      WhyNotPython({ADVISOR_TEST_PYTHON, "-c", "import train"}).rfind("python -c runs code", 0),
      0u);
  EXPECT_EQ(WhyNotPython({ADVISOR_TEST_PYTHON, "-u", "-"}).rfind("python - reads its script", 0),
            0u);
  EXPECT_EQ(WhyNotPython({ADVISOR_TEST_PYTHON, "-W", "ignore", "-m", "pkg.train", "-c"}), "")
      << "a module's own -c is its argument";
  EXPECT_EQ(WhyNotPython({ADVISOR_TEST_PYTHON, "-X", "dev", "train.py", "-"}), "")
      << "the script's own arguments are its own";
}

TEST(PythonCommand, TheScriptIsWhatFollowsTheLauncher) {
  EXPECT_EQ(
      ScriptPart({"python3", "-m", "torch.distributed.run", "--node_rank", "1", "t.py", "--x"}),
      (std::vector<std::string>{"t.py", "--x"}));
  EXPECT_EQ(ScriptPart({"python3", "-m", "pkg.train", "--x"}),
            (std::vector<std::string>{"-m", "pkg.train", "--x"}));
  EXPECT_EQ(ScriptPart({"torchrun", "run"}), (std::vector<std::string>{"torchrun", "run"}));
}

TEST(ProbeMessages, AnEndedMessageNamesTheFrameworksTheScriptImported) {
  const json ended = {
      {"type", "ended"},         {"steps", 0},
      {"optimizer_seen", false}, {"model_seen", false},
      {"raised", false},         {"frameworks", {"lightning 2.6.6", "transformers 5.24"}}};
  EXPECT_EQ(ReadEnded(ended).frameworks,
            (std::vector<std::string>{"lightning 2.6.6", "transformers 5.24"}));
  json without = ended;
  without.erase("frameworks");
  EXPECT_TRUE(ReadEnded(without).frameworks.empty());
  for (const json& bad : {json("lightning"), json{1, 2}, json::array({std::string(65, 'x')}),
                          json(std::vector<std::string>(9, "x"))}) {
    json message = ended;
    message["frameworks"] = bad;
    EXPECT_THROW(ReadEnded(message), ProbeMessageError) << bad.dump();
  }
}

// A script that died of torch's out-of-memory error: its "ended" carries where and what the
// allocator held, read with the request's size from torch's message.
TEST(ProbeMessages, AnEndedByOutOfMemoryCarriesWhereAndTheAllocator) {
  const json oom = {
      {"message",
       "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "79.15 GiB of which 1.23 GiB is free."},
      {"path", "blocks.1"},
      {"phase", "forward"},
      {"op", "forward: return self.fc(x)"},
      {"source", {"/home/me/train.py", 41, "x = block(x)"}},
      {"allocator",
       {{"allocated_bytes", 3LL << 30},
        {"reserved_bytes", 4LL << 30},
        {"peak_allocated_bytes", 3LL << 30},
        {"device_total_bytes", 8LL << 30},
        {"device_free_bytes", 1 << 29},
        {"largest_free_block_bytes", nullptr},
        {"alloc_retries", 2},
        {"expandable_segments", false}}},
      {"training_state", nullptr},
      {"torch", "2.11.0"},
      {"device", "cuda"},
      {"input", {{"batch_size", 64}, {"dtype", "float32"}}},
      {"path_note", ""},
      {"kept_for_backward", {{"blocks.0", 3 << 20, 4}, {"", 1 << 19, 1}}}};
  const json ended = {{"type", "ended"},    {"steps", 3},     {"optimizer_seen", true},
                      {"model_seen", true}, {"raised", true}, {"out_of_memory", oom}};
  const ProbeEnded read = ReadEnded(ended);
  ASSERT_TRUE(read.out_of_memory.has_value());
  EXPECT_EQ(read.out_of_memory->path, "blocks.1");
  EXPECT_EQ(read.out_of_memory->phase, "forward");
  EXPECT_EQ(read.out_of_memory->requested_mb, 2048.0);
  ASSERT_TRUE(read.out_of_memory->source.has_value());
  EXPECT_EQ(read.out_of_memory->source->line, 41);
  ASSERT_TRUE(read.out_of_memory->allocator.has_value());
  EXPECT_EQ(read.out_of_memory->allocator->reserved_mb, 4096.0);
  EXPECT_EQ(read.out_of_memory->allocator->device_free_mb, 512.0);
  EXPECT_FALSE(read.out_of_memory->allocator->largest_free_block_mb.has_value());
  EXPECT_EQ(read.run.batch_size, 64);
  ASSERT_EQ(read.out_of_memory->kept_for_backward.size(), 2u);
  EXPECT_EQ(read.out_of_memory->kept_for_backward[0].name, "blocks.0");
  EXPECT_EQ(read.out_of_memory->kept_for_backward[0].mb, 3.0);
  EXPECT_EQ(read.out_of_memory->kept_for_backward[1].allocations, 1);
  json other = ended;
  other["out_of_memory"] = nullptr;
  EXPECT_FALSE(ReadEnded(other).out_of_memory.has_value()) << "any other uncaught error";
  for (const auto& [field, bad] : {std::pair<const char*, json>{"phase", "sideways"},
                                   {"source", json{"train.py", 0, ""}},
                                   {"allocator", json{{"allocated_bytes", -1}}},
                                   {"kept_for_backward", json{{"blocks.0", -1, 1}}},
                                   {"kept_for_backward", json{{"blocks.0", 1}}},
                                   {"kept_for_backward", json(std::vector<json>(65, {"a", 1, 1}))},
                                   {"path_note", 3}}) {
    json message = ended;
    message["out_of_memory"][field] = bad;
    EXPECT_THROW(ReadEnded(message), ProbeMessageError) << field;
  }
}

// What was live at an out-of-memory error: the training state, the graphs' saved tensors by
// instance (the holder named as a peak's is, with the instances holding as much), and on CUDA the
// rest of what the allocator held.
TEST(OutOfMemoryFailure, WhatWasLiveNamesTheInstanceKeepingTheMost) {
  OutOfMemoryFailure failure;
  failure.phase = "backward";
  failure.kept_for_backward = {
      {"blocks.0", 6.03, 2}, {"blocks.1", 6, 2}, {"", 1, 1}, {"blocks.2", 2, 1}};
  const TrainingState state{10, 10, 20, "", "", 0, 0};
  std::optional<MemoryPeak> live = LiveAtFailure(failure, state);
  ASSERT_TRUE(live.has_value());
  EXPECT_EQ(live->path, "blocks.0");
  EXPECT_EQ(live->tied_with, std::vector<std::string>{"blocks.1"}) << "within 1 % of it";
  EXPECT_EQ(live->phase, "backward");
  EXPECT_DOUBLE_EQ(live->mb, 55.03) << "a CPU: what the categories hold";
  ASSERT_EQ(live->by_module.size(), 3u) << "what no instance owns is in no row";
  EXPECT_EQ(live->by_module[2].name, "blocks.2");
  ASSERT_EQ(live->by_category.size(), 4u);
  EXPECT_EQ(live->category, "optimizer_state");
  EXPECT_EQ(live->by_category[1].name, "activations");
  EXPECT_DOUBLE_EQ(live->by_category[1].mb, 15.03);
  EXPECT_EQ(live->by_category[1].allocations, 6);

  failure.allocator = AllocatorAtFailure{60, 70, 65, 80, std::nullopt, std::nullopt, 0, false};
  live = LiveAtFailure(failure, state);
  ASSERT_TRUE(live.has_value());
  EXPECT_DOUBLE_EQ(live->mb, 60) << "CUDA: what the allocator held";
  EXPECT_EQ(live->by_category.back().name, "other");
  EXPECT_NEAR(live->by_category.back().mb, 4.97, 1e-9);

  failure.kept_for_backward.clear();
  EXPECT_FALSE(LiveAtFailure(failure, std::nullopt).has_value()) << "nothing known";
}

// torch's wording of the request, from 1.13's to 2.x's, in each unit format_size writes.
TEST(ProbeMessages, TheRequestsSizeIsReadFromTorchsMessage) {
  EXPECT_EQ(RequestedMbOf("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB "
                          "total capacity; 14.50 GiB already allocated)"),
            20.0);
  EXPECT_EQ(RequestedMbOf("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                          "capacity of 79.15 GiB of which 1.23 GiB is free."),
            2048.0);
  EXPECT_EQ(RequestedMbOf("Tried to allocate 512.00 KiB"), 0.5);
  EXPECT_EQ(RequestedMbOf("Tried to allocate 1048576 bytes"), 1.0);
  EXPECT_FALSE(RequestedMbOf("CUDA error: out of memory").has_value());
}

TEST(ProbeMessages, AHelloNamesItsRank) {
  const json hello = {{"type", "hello"},
                      {"protocol", 1},
                      {"pid", 42},
                      {"python", "3.12.3"},
                      {"executable", "/venv/bin/python"},
                      {"rank", 1},
                      {"world_size", 2}};
  const ProbeHello read = ReadHello(hello);
  EXPECT_EQ(read.rank, 1);
  EXPECT_EQ(read.world_size, 2);
  EXPECT_EQ(read.local_world_size, 2) << "WORLD_SIZE's without LOCAL_WORLD_SIZE";
  // The rank and world size are the script's environment: out of range, the user's to fix.
  for (const json& rank : {json(2), json(-1), json(1000000000000000000)}) {
    json bad = hello;
    bad["rank"] = rank;
    try {
      ReadHello(bad);
      ADD_FAILURE() << rank;
    } catch (const RankEnvironmentError& error) {
      EXPECT_EQ(std::string(error.what()),
                "was started with RANK=" + rank.dump() +
                    " and WORLD_SIZE=2: WORLD_SIZE must be from 1 to 1048576 and RANK from 0 to "
                    "WORLD_SIZE - 1 (a launcher such as torchrun sets both)");
    }
  }
  json too_many = hello;
  too_many["world_size"] = 1000000000000000000;
  EXPECT_THROW(ReadHello(too_many), RankEnvironmentError);
  json local = hello;
  local["local_world_size"] = 1;
  EXPECT_EQ(ReadHello(local).local_world_size, 1);
  local["local_world_size"] = 3;
  EXPECT_THROW(ReadHello(local), ProbeMessageError) << "more ranks here than in the job";
}

TEST(ProbeMessages, AHelloNamesItsNodeOfSeveral) {
  json hello = {{"type", "hello"},
                {"protocol", 1},
                {"pid", 42},
                {"python", "3.12.3"},
                {"executable", "/venv/bin/python"},
                {"rank", 3},
                {"world_size", 4},
                {"local_world_size", 2},
                {"group_rank", 1},
                {"group_world_size", 2},
                {"host", "node-b"}};
  const ProbeHello read = ReadHello(hello);
  EXPECT_EQ(read.group_rank, 1);
  EXPECT_EQ(read.group_world_size, 2);
  EXPECT_EQ(read.host, "node-b");
  const ProbeHello alone = ReadHello({{"type", "hello"},
                                      {"protocol", 1},
                                      {"pid", 42},
                                      {"python", "3.12.3"},
                                      {"executable", "/usr/bin/python3"},
                                      {"rank", 0},
                                      {"world_size", 1}});
  EXPECT_EQ(alone.group_rank, 0) << "one node without GROUP_RANK";
  EXPECT_EQ(alone.group_world_size, 1);
  EXPECT_EQ(alone.host, "");
  json bad = hello;
  bad["group_rank"] = 2;
  try {
    ReadHello(bad);
    FAIL();
  } catch (const ProbeMessageError& error) {
    EXPECT_STREQ(error.what(),
                 "probe message \"hello\": field 'group_rank' must be an integer below "
                 "group_world_size (2), got 2");
  }
  bad = hello;
  bad["group_world_size"] = 5;
  EXPECT_THROW(ReadHello(bad), ProbeMessageError) << "more nodes than ranks";
  bad = hello;
  bad["host"] = 7;
  EXPECT_THROW(ReadHello(bad), ProbeMessageError);
}

}  // namespace
}  // namespace advisor
