// Writes small traces in the shape torch.profiler (Kineto) writes them, for the trace analysis
// tests: events in microseconds on one host clock, read back through the real reader.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "engine/trace_import/trace_reader.h"

namespace advisor::testing {

class KinetoTraceBuilder {
 public:
  static constexpr int kPid = 100;
  static constexpr int kMainThread = 100;
  static constexpr int kAutogradThread = 101;

  // A cpu_op; seq >= 0 adds "Sequence number" and "Fwd thread id" (0 for forward ops, as Kineto
  // writes them; 1 for backward nodes, RecordFunction's number for the main thread).
  KinetoTraceBuilder& Op(const std::string& name, double start_us, double dur_us,
                         int tid = kMainThread, long long seq = -1, int fwd_thread = 0) {
    std::string args = "\"External id\": " + std::to_string(next_external_++);
    if (seq >= 0) {
      args += ", \"Sequence number\": " + std::to_string(seq) +
              ", \"Fwd thread id\": " + std::to_string(fwd_thread);
    }
    return Complete("cpu_op", name, kPid, tid, start_us, dur_us, args);
  }
  KinetoTraceBuilder& Annotation(const std::string& name, double start_us, double dur_us,
                                 int tid = kMainThread) {
    return Complete("user_annotation", name, kPid, tid, start_us, dur_us,
                    "\"External id\": " + std::to_string(next_external_++));
  }
  KinetoTraceBuilder& PythonModule(const std::string& instance, double start_us, double dur_us) {
    return Complete("python_function", "nn.Module: " + instance, kPid, kMainThread, start_us,
                    dur_us, "\"Python id\": 1");
  }
  // A runtime call whose "External id" is its own correlation, as Kineto writes it.
  KinetoTraceBuilder& Runtime(const std::string& name, double start_us, double dur_us,
                              int correlation, int tid = kMainThread) {
    const std::string id = std::to_string(correlation);
    return Complete("cuda_runtime", name, kPid, tid, start_us, dur_us,
                    "\"External id\": " + id + ", \"cbid\": 211, \"correlation\": " + id);
  }
  KinetoTraceBuilder& Kernel(const std::string& name, double start_us, double dur_us,
                             int correlation, int stream = 7) {
    const std::string id = std::to_string(correlation);
    return Complete("kernel", name, 0, stream, start_us, dur_us,
                    "\"External id\": " + id + ", \"device\": 0, \"stream\": " +
                        std::to_string(stream) + ", \"correlation\": " + id +
                        ", \"registers per thread\": 32, \"shared memory\": 0, "
                        "\"grid\": [80, 1, 1], \"block\": [256, 1, 1]");
  }
  KinetoTraceBuilder& Memcpy(const std::string& name, double start_us, double dur_us,
                             int correlation, long long bytes) {
    const std::string id = std::to_string(correlation);
    return Complete("gpu_memcpy", name, 0, 7, start_us, dur_us,
                    "\"External id\": " + id + ", \"device\": 0, \"stream\": 7, "
                    "\"correlation\": " + id + ", \"bytes\": " + std::to_string(bytes));
  }
  KinetoTraceBuilder& Memory(double at_us, long long bytes, long long allocated,
                             long long reserved) {
    events_.push_back(R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", )"
                      R"("pid": 100, "tid": 100, "ts": )" + Number(at_us) +
                      R"(, "args": {"Total Reserved": )" + std::to_string(reserved) +
                      R"(, "Total Allocated": )" + std::to_string(allocated) +
                      R"(, "Bytes": )" + std::to_string(bytes) +
                      R"(, "Addr": 1, "Device Id": 0, "Device Type": 1}})");
    return *this;
  }
  // The forward-backward flow Kineto draws from a forward op to its backward node.
  KinetoTraceBuilder& Flow(int id, double forward_us, double backward_us) {
    events_.push_back(R"({"ph": "s", "id": )" + std::to_string(id) +
                      R"(, "pid": 100, "tid": 100, "ts": )" + Number(forward_us) +
                      R"(, "cat": "fwdbwd", "name": "fwdbwd"})");
    events_.push_back(R"({"ph": "f", "id": )" + std::to_string(id) +
                      R"(, "pid": 100, "tid": 101, "ts": )" + Number(backward_us) +
                      R"(, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})");
    return *this;
  }
  KinetoTraceBuilder& Gpu(const std::string& name, long long memory_bytes) {
    devices_ = R"("deviceProperties": [{"id": 0, "name": ")" + name +
               R"(", "totalGlobalMem": )" + std::to_string(memory_bytes) +
               R"(, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerMultiprocessor": 2048,
                  "warpSize": 32, "numSms": 132, "regsPerMultiprocessor": 65536,
                  "sharedMemPerMultiprocessor": 233472}],)";
    return *this;
  }
  KinetoTraceBuilder& Rank(int rank, int world) {
    distributed_ = R"(, "distributedInfo": {"backend": "nccl", "rank": )" + std::to_string(rank) +
                   R"(, "world_size": )" + std::to_string(world) + "}";
    return *this;
  }

  std::string Text() const {
    std::string text = "{\n  \"schemaVersion\": 1,\n  " + devices_ + "\n  \"traceEvents\": [\n";
    for (std::size_t i = 0; i < events_.size(); ++i) {
      text += "  " + events_[i] + (i + 1 < events_.size() ? ",\n" : "\n");
    }
    return text + "  ]" + distributed_ + "\n}\n";
  }

  TraceStore Write(const std::string& path) const {
    std::ofstream(path) << Text();
    return ReadTrace(path);
  }

 private:
  static std::string Number(double us) { return std::to_string(us); }

  KinetoTraceBuilder& Complete(const char* category, const std::string& name, int pid, int tid,
                               double start_us, double dur_us, const std::string& args) {
    events_.push_back(std::string(R"({"ph": "X", "cat": ")") + category + R"(", "name": ")" + name +
                      R"(", "pid": )" + std::to_string(pid) + R"(, "tid": )" + std::to_string(tid) +
                      R"(, "ts": )" + Number(start_us) + R"(, "dur": )" + Number(dur_us) +
                      R"(, "args": {)" + args + "}}");
    return *this;
  }

  std::vector<std::string> events_;
  std::string devices_;
  std::string distributed_;
  int next_external_ = 1;
};

}  // namespace advisor::testing
