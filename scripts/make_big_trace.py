#!/usr/bin/env python3
"""Writes a large torch.profiler (Kineto) trace for benchmarking trace readers.

    make_big_trace.py OUT.json [--gigabytes G] [--gzip]

The events have the shape PyTorch 2.x writes for a GPU training step recorded with
record_shapes: per step a ProfilerStep range, forward ops with their sequence numbers and input
shapes, CUDA launches with their kernels and launch flows, backward nodes on the autograd thread
with their forward-backward flows, an optimizer range, copies and memory records, written one
event per line block as Kineto does, metadata before and after the event array. Steps repeat
with later timestamps and fresh ids until the file holds G gigabytes (default 1.2) of JSON. The
text is streamed to the file, so memory stays small. --gzip compresses it (OUT should end .gz).
"""

import argparse
import gzip
import json

OPS = ["aten::linear", "aten::addmm", "aten::relu", "aten::layer_norm", "aten::native_layer_norm",
       "aten::add", "aten::matmul", "aten::bmm", "aten::softmax", "aten::_softmax",
       "aten::transpose", "aten::view", "aten::reshape", "aten::dropout", "aten::gelu"]
KERNELS = [
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_align4::Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
]
PID, MAIN, AUTOGRAD = 3815, 3815, 3942
OPS_PER_STEP = 400


class Writer:
    def __init__(self, out):
        self.out = out
        self.bytes = 0
        self.first = True

    def event(self, text):
        chunk = ("" if self.first else ",\n") + text
        self.first = False
        self.out.write(chunk)
        self.bytes += len(chunk)


def complete(cat, name, pid, tid, ts, dur, args):
    return ('  {\n    "ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d,\n'
            '    "ts": %.3f, "dur": %.3f,\n    "args": {\n      %s\n    }\n  }'
            % (cat, json.dumps(name), pid, tid, ts, dur, args))


def flow(phase, ident, tid, ts, cat):
    bind = ', "bp": "e"' if phase == "f" else ""
    return ('  {\n    "ph": "%s", "id": %d, "pid": %d, "tid": %d, "ts": %.3f,\n'
            '    "cat": "%s", "name": "%s"%s\n  }' % (phase, ident, PID, tid, ts, cat, cat, bind))


def write_step(w, step, t, ids):
    w.event(complete("user_annotation", "ProfilerStep#%d" % step, PID, MAIN, t, 95000.0,
                     '"External id": %d, "Record function id": 0, "Ev Idx": %d' % (ids["ext"], ids["ev"])))
    ids["ext"] += 1
    ids["ev"] += 1
    clock = t + 20.0
    for i in range(OPS_PER_STEP):
        name = OPS[i % len(OPS)]
        seq = ids["seq"]
        ids["seq"] += 1
        w.event(complete("cpu_op", name, PID, MAIN, clock, 40.5, (
            '"External id": %d,"Record function id": 0, "Concrete Inputs": ["", "", ""], '
            '"Input type": ["float", "float", "Scalar"], "Input Strides": [[1024, 1], [1024, 1], []], '
            '"Input Dims": [[128, 1024], [1024, 1024], []], "Ev Idx": %d, "Sequence number": %d, '
            '"Fwd thread id": 0' % (ids["ext"], ids["ev"], seq))))
        op_ext = ids["ext"]
        ids["ext"] += 1
        ids["ev"] += 1
        corr = ids["corr"]
        ids["corr"] += 1
        w.event(complete("cuda_runtime", "cudaLaunchKernel", PID, MAIN, clock + 10.0, 6.25,
                         '"External id": %d, "cbid": 211, "correlation": %d' % (op_ext, corr)))
        w.event(flow("s", corr, MAIN, clock + 10.0, "ac2g"))
        w.event(complete("kernel", KERNELS[i % len(KERNELS)], 0, 7, clock + 30.0, 18.75, (
            '"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, '
            '"correlation": %d, "registers per thread": 96, "shared memory": 24576, '
            '"blocks per SM": 1.212121, "warps per SM": 9.696970, "grid": [160, 1, 1], '
            '"block": [256, 1, 1], "est. achieved occupancy %%": 12' % (op_ext, corr))))
        w.event(flow("f", corr, 7, clock + 30.0, "ac2g"))
        w.event(flow("s", seq, MAIN, clock, "fwdbwd"))
        back = t + 45000.0 + i * 110.0
        w.event(complete("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", PID,
                         AUTOGRAD, back, 95.0,
                         '"External id": %d, "Ev Idx": %d, "Sequence number": %d, "Fwd thread id": 1'
                         % (ids["ext"], ids["ev"], seq)))
        ids["ext"] += 1
        ids["ev"] += 1
        w.event(complete("cpu_op", "AddmmBackward0", PID, AUTOGRAD, back + 2.0, 90.0,
                         '"External id": %d, "Ev Idx": %d, "Sequence number": %d, "Fwd thread id": 1'
                         % (ids["ext"], ids["ev"], seq)))
        w.event(flow("f", seq, AUTOGRAD, back + 2.0, "fwdbwd"))
        ids["ext"] += 1
        ids["ev"] += 1
        if i % 20 == 0:
            w.event('  {\n    "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",\n'
                    '    "pid": %d, "tid": %d,\n    "ts": %.3f,\n    "args": {\n      '
                    '"Total Reserved": 2097152000, "Total Allocated": 1048576000, "Bytes": 4194304, '
                    '"Addr": 139872387350528, "Device Id": 0, "Device Type": 1, "Ev Idx": %d\n'
                    '    }\n  }' % (PID, MAIN, clock + 5.0, ids["ev"]))
            ids["ev"] += 1
        clock += 100.0
    w.event(complete("user_annotation", "Optimizer.step#AdamW.step", PID, MAIN, t + 90000.0,
                     4000.0, '"External id": %d, "Ev Idx": %d' % (ids["ext"], ids["ev"])))
    ids["ext"] += 1
    ids["ev"] += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--gigabytes", type=float, default=1.2)
    parser.add_argument("--gzip", action="store_true")
    args = parser.parse_args()
    target = int(args.gigabytes * 1e9)
    opener = (lambda p: gzip.open(p, "wt", compresslevel=1)) if args.gzip else (lambda p: open(p, "w"))
    with opener(args.out) as out:
        out.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {\n      "id": 0, '
                  '"name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,\n      '
                  '"computeMajor": 9, "computeMinor": 0,\n      "maxThreadsPerBlock": 1024, '
                  '"maxThreadsPerMultiprocessor": 2048,\n      "regsPerBlock": 65536, "warpSize": 32,\n'
                  '      "sharedMemPerBlock": 49152, "numSms": 132\n    , '
                  '"regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, '
                  '"sharedMemPerMultiprocessor": 233472\n    }\n  ],\n  "record_shapes": 1,\n'
                  '  "traceEvents": [\n')
        w = Writer(out)
        ids = {"ext": 1, "ev": 0, "seq": 1, "corr": 100}
        step = 0
        while w.bytes < target:
            write_step(w, step, 1.7e15 + step * 100000.0, ids)
            step += 1
        out.write('\n  ],\n  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n'
                  '  "traceName": "make_big_trace.py",\n  "displayTimeUnit": "ms",\n'
                  '  "baseTimeNanoseconds": 1700000000000000000\n}\n')
    print(json.dumps({"out": args.out, "steps": step, "json_bytes": w.bytes}))


if __name__ == "__main__":
    main()
