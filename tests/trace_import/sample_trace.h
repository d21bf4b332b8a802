// A small trace in the shape Kineto writes (torch 2.x): metadata members before and after the
// event array, the event kinds advisor reads, and a name with escapes.
#pragma once

#include <string>

namespace advisor::testing {

inline std::string SampleKinetoTrace() {
  return R"json({
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,
     "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
     "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
     "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536,
     "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}
  ],
  "record_shapes": 1,
  "traceEvents": [
  {
    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 100, "tid": 100,
    "ts": 1000.000, "dur": 900.5,
    "args": {"External id": 1, "Record function id": 0, "Ev Idx": 0}
  },
  {
    "ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 100, "tid": 100,
    "ts": 1010.250, "dur": 40,
    "args": {"External id": 2, "Sequence number": 7, "Fwd thread id": 0,
             "Input Dims": [[16, 32], [16, 64], [64, 32]], "Input type": ["float", "float", "float"]}
  },
  {"ph": "s", "id": 7, "pid": 100, "tid": 100, "ts": 1010.250, "cat": "fwdbwd", "name": "fwdbwd"},
  {
    "ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 100, "tid": 100,
    "ts": 1005, "dur": 50, "args": {"Python parent id": 3, "Python id": 4, "Ev Idx": 2}
  },
  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
    "ts": 1020, "dur": 5, "args": {"External id": 2, "cbid": 211, "correlation": 55}
  },
  {
    "ph": "X", "cat": "kernel", "name": "void gemm<float, \"quoted\\path\">(int)", "pid": 0, "tid": 7,
    "ts": 1030, "dur": 12.5,
    "args": {"External id": 2, "queued": 0, "device": 0, "context": 1, "stream": 7,
             "correlation": 55, "registers per thread": 96, "shared memory": 16384,
             "blocks per SM": 0.5, "warps per SM": 2.0, "grid": [66, 1, 1], "block": [128, 1, 1],
             "est. achieved occupancy %": 6}
  },
  {
    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
    "ts": 1050, "dur": 3,
    "args": {"External id": 9, "device": 0, "context": 1, "stream": 7, "correlation": 60,
             "bytes": 4096, "memory bandwidth (GB/s)": 1.36}
  },
  {
    "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 100,
    "ts": 1060,
    "args": {"Total Reserved": 2097152, "Total Allocated": 1024, "Bytes": 1024,
             "Addr": 139872387350528, "Device Id": 0, "Device Type": 1}
  },
  {
    "ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 100, "tid": 100,
    "ts": 1100, "dur": 20,
    "args": {"External id": 12, "Collective name": "allreduce", "Process Group Name": "0",
             "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]",
             "Seq": 41, "Group size": 2, "In msg nelems": 1024, "Out msg nelems": 1024,
             "dtype": "Float"}
  },
  {
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0",
    "pid": 100, "tid": 101, "ts": 1200, "dur": 30,
    "args": {"External id": 20, "Sequence number": 7, "Fwd thread id": 1}
  },
  {"ph": "f", "id": 7, "pid": 100, "tid": 101, "ts": 1200, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
  {"name": "thread_name", "ph": "M", "pid": 100, "tid": 101, "args": {"name": "thread 101 (pt_autograd_0)"}}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2, "pg_count": 1,
                      "pg_config": [{"pg_name": "0", "pg_desc": "default_pg",
                                     "backend_config": "cuda:nccl", "pg_size": 2, "ranks": [0, 1]}],
                      "nccl_version": "2.21.5"},
  "baseTimeNanoseconds": 1759000000000000000,
  "displayTimeUnit": "ms"
}
)json";
}

// The events torch.autograd.profiler writes itself (LibTorch without Kineto): a bare array.
inline std::string SampleLegacyTrace() {
  return R"([{"name": "ProfilerStep#1", "ph": "X", "ts": 100, "dur": 500, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::mm", "ph": "X", "ts": 120, "dur": 30, "tid": 1, "pid": "CPU functions", "args": {}}])";
}

}  // namespace advisor::testing
