// The records of a store read on several threads, each chunk on one of them and the chunks' records
// joined in file order, are those one thread reading every chunk in turn makes, field for field.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_import/trace_reader.h"

namespace advisor {
namespace {

const std::string kTraces = ADVISOR_TEST_TRACES_DIR;

// Small blocks, so that a small recorded trace is read into many chunks.
TraceStore ReadInChunks(const std::string& relative) {
  ReadOptions options;
  options.threads = 1;
  options.block_bytes = 16 << 10;
  return ReadTrace(kTraces + "/" + relative, options);
}

void Write(std::ostream& out, const HostRange& range) {
  out << range.name << ' ' << range.thread << ' ' << range.start_ns << ' ' << range.end_ns << '\n';
}

void Write(std::ostream& out, const CollectiveDescription& collective) {
  out << collective.name << ' ' << collective.process_group << ' ' << collective.seq << '\n';
}

void Write(std::ostream& out, const StepSpan& step) {
  out << "step " << step.index << ' ' << step.start_ns << ' ' << step.end_ns;
  for (const PhaseSpan& phase : step.phases) {
    out << ' ' << static_cast<int>(phase.phase) << ':' << phase.start_ns << '-' << phase.end_ns;
  }
  out << '\n';
}

template <typename T>
void WriteAll(std::ostream& out, const char* what, const std::vector<T>& items) {
  out << what << ' ' << items.size() << '\n';
  for (const T& item : items) Write(out, item);
}

// Every field of `records`, a line an item: two sets of records are equal where their texts are.
std::vector<std::string> Lines(const TraceRecords& records) {
  std::ostringstream out;
  const HostEvents& host = records.host;
  out << "ops " << host.ops.size() << '\n';
  for (const OpEvent& op : host.ops) {
    out << op.name << ' ' << static_cast<int>(op.scope) << ' ' << op.depth << ' ' << op.thread
        << ' ' << op.start_ns << ' ' << op.end_ns << '\n';
  }
  out << "sequences " << host.op_sequences.size() << '\n';
  for (const OpSequence& sequence : host.op_sequences) {
    out << sequence.seq_nr << ' ' << sequence.forward_thread << '\n';
  }
  WriteAll(out, "profiler steps", host.profiler_steps);
  WriteAll(out, "optimizer steps", host.optimizer_steps);
  WriteAll(out, "data loader", host.data_loader);
  WriteAll(out, "advisor ranges", host.advisor_ranges);
  WriteAll(out, "advisor phases", host.advisor_phases);
  WriteAll(out, "advisor windows", host.advisor_windows);
  WriteAll(out, "advisor backward spans", host.advisor_backward_spans);
  out << "modules " << host.modules.size() << '\n';
  for (const ModuleRange& module : host.modules) {
    out << module.component << ' ' << module.type << ' ' << module.thread << ' ' << module.start_ns
        << ' ' << module.end_ns << '\n';
  }
  out << "collectives of ops\n";
  for (const auto& [op, collective] : std::map<std::uint64_t, CollectiveDescription>(
           host.collective_of_op.begin(), host.collective_of_op.end())) {
    out << op << ' ';
    Write(out, collective);
  }
  out << "linked " << host.backward_linked << " dtype " << host.compute_dtype << " numbered "
      << host.has_sequence_numbers << '\n';
  for (const std::string& note : host.notes) out << "note " << note << '\n';

  const GpuRecords& gpu = records.gpu;
  out << "kernels " << gpu.kernels.size() << '\n';
  for (const KernelEvent& kernel : gpu.kernels) {
    out << kernel.name << ' ' << kernel.device << ' ' << kernel.stream << ' ' << kernel.start_ns
        << ' ' << kernel.end_ns << ' ' << kernel.grid[0] << ' ' << kernel.grid[1] << ' '
        << kernel.grid[2] << ' ' << kernel.block[0] << ' ' << kernel.block[1] << ' '
        << kernel.block[2] << ' ' << kernel.registers_per_thread << ' '
        << kernel.static_shared_bytes << ' ' << kernel.correlation_id << ' ' << kernel.external_id
        << '\n';
  }
  out << "copies " << gpu.memcpys.size() << '\n';
  for (const MemcpyEvent& copy : gpu.memcpys) {
    out << static_cast<int>(copy.kind) << ' ' << copy.bytes << ' ' << copy.pageable_host << ' '
        << copy.device << ' ' << copy.stream << ' ' << copy.start_ns << ' ' << copy.end_ns << ' '
        << copy.correlation_id << ' ' << copy.external_id << '\n';
  }
  out << "memsets " << gpu.memsets.size() << '\n';
  for (const MemsetEvent& memset : gpu.memsets) {
    out << memset.bytes << ' ' << memset.device << ' ' << memset.stream << ' ' << memset.start_ns
        << ' ' << memset.end_ns << ' ' << memset.correlation_id << ' ' << memset.external_id
        << '\n';
  }
  out << "syncs " << gpu.syncs.size() << '\n';
  for (const SyncEvent& sync : gpu.syncs) {
    out << static_cast<int>(sync.kind) << ' ' << sync.stream << ' ' << sync.start_ns << ' '
        << sync.end_ns << ' ' << sync.correlation_id << ' ' << sync.external_id << '\n';
  }
  out << "calls " << gpu.api_calls.size() << '\n';
  for (const ApiCallEvent& call : gpu.api_calls) {
    out << call.name << ' ' << call.driver << ' ' << call.thread << ' ' << call.start_ns << ' '
        << call.end_ns << ' ' << call.correlation_id << ' ' << call.external_id << '\n';
  }
  out << "collectives of kernels\n";
  for (const auto& [kernel, collective] : std::map<std::size_t, CollectiveDescription>(
           gpu.collective_of_kernel.begin(), gpu.collective_of_kernel.end())) {
    out << kernel << ' ';
    Write(out, collective);
  }
  out << "device work " << gpu.any_device_work << " on " << gpu.device << '\n';
  for (const LaunchedWork& work : gpu.launched_work) {
    out << "launched " << work.launch_ns << ' ' << work.end_ns << '\n';
  }

  const TraceSteps& steps = records.steps;
  WriteAll(out, "steps", steps.steps);
  WriteAll(out, "on device", steps.on_device);
  out << "cut " << static_cast<int>(steps.cut) << " partial " << steps.partial_first_step_left_out
      << '\n';
  for (const AdvisorWindow& window : steps.windows) {
    out << "window " << window.label << ' ' << window.start_ns << ' ' << window.end_ns << ' '
        << window.first_step << ' ' << window.end_step << '\n';
  }
  if (records.memory) {
    out << "memory " << records.memory->peak_allocated_mb << ' ' << records.memory->peak_reserved_mb
        << ' ' << records.memory->device_total_mb << ' '
        << records.memory->tensor_allocs_per_step.value_or(-1) << ' '
        << records.memory->tensor_alloc_mb_per_step.value_or(-1) << '\n';
  }

  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// `many`'s lines are `one`'s; the first that differs is named.
void ExpectSameLines(const std::vector<std::string>& one, const std::vector<std::string>& many) {
  const auto differ = std::mismatch(one.begin(), one.end(), many.begin(), many.end());
  EXPECT_TRUE(differ.first == one.end() && differ.second == many.end())
      << "line " << (differ.first - one.begin())
      << ": one thread: " << (differ.first == one.end() ? "(end)" : *differ.first)
      << "; several: " << (differ.second == many.end() ? "(end)" : *differ.second);
}

// A GPU trace from Kineto (kernels, copies, runtime calls, flows, sequence numbers, memory
// records) and torch 1.13's legacy list (uncategorised operators and the labels placed among
// them), each in tens of chunks, read on 1, 2, 3 and 8 threads; and taken (each chunk let go once
// read) on 4.
TEST(TraceRecordsThreads, RecordsReadOnSeveralThreadsAreThoseOfOne) {
  for (const char* trace : {"torch-2.11-h200/vit_bisect_window2.json.gz",
                            "torch-1.13-cpu/single/handwritten_attention-labels.json.gz"}) {
    SCOPED_TRACE(trace);
    const TraceStore store = ReadInChunks(trace);
    ASSERT_GT(store.chunks.size(), 16u);
    const std::vector<std::string> one = Lines(ReadTraceRecords(store, 1));
    for (int threads : {2, 3, 8}) {
      SCOPED_TRACE(threads);
      ExpectSameLines(one, Lines(ReadTraceRecords(store, threads)));
    }
    TraceStore taken = ReadInChunks(trace);
    ExpectSameLines(one, Lines(TakeTraceRecords(taken, 4)));
    EXPECT_TRUE(taken.chunks.empty());
  }
}

// The test above compares records worth comparing: each trace holds what its reader joins.
TEST(TraceRecordsThreads, TheTracesComparedHoldWhatTheChunksJoin) {
  const TraceRecords gpu =
      ReadTraceRecords(ReadInChunks("torch-2.11-h200/vit_bisect_window2.json.gz"), 2);
  EXPECT_GT(gpu.host.ops.size(), 1000u);
  EXPECT_FALSE(gpu.host.op_sequences.empty());
  EXPECT_TRUE(gpu.host.backward_linked);
  EXPECT_GT(gpu.gpu.kernels.size(), 100u);
  EXPECT_GT(gpu.gpu.api_calls.size(), 100u);
  EXPECT_GT(std::count_if(gpu.gpu.kernels.begin(), gpu.gpu.kernels.end(),
                          [](const KernelEvent& kernel) { return kernel.external_id != 0; }),
            100);
  EXPECT_FALSE(gpu.steps.steps.empty());
  const TraceRecords legacy = ReadTraceRecords(
      ReadInChunks("torch-1.13-cpu/single/handwritten_attention-labels.json.gz"), 2);
  EXPECT_GT(legacy.host.ops.size(), 1000u);
  EXPECT_FALSE(legacy.host.modules.empty());  // its labels, placed among its operators
  EXPECT_EQ(legacy.steps.steps.size(), 4u);
}

}  // namespace
}  // namespace advisor
