#!/usr/bin/env python3
"""What the op probe costs an op, in one process: rounds of N small elementwise ops
((a - b).pow(2).sum(-1) on [8, 16] tensors, with autograd), the probe off and then on; the median
over the rounds of the difference per op. Run it with two builds' libraries to compare probes
(the input shapes the probe records since the broadcast-temporary rule, say).

    op_probe_cost.py PROBE_LIBRARY [--rounds 21] [--ops 4000]
"""

import argparse
import statistics
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--ops", type=int, default=4000)
    args = parser.parse_args()
    torch.ops.load_library(args.library)
    torch.set_num_threads(1)
    a = torch.randn(8, 16, requires_grad=True)
    b = torch.randn(1, 16)

    def us_per_op():
        start = time.perf_counter()
        for _ in range(args.ops):
            (a - b).pow(2).sum(-1)
        return (time.perf_counter() - start) / (3 * args.ops) * 1e6

    us_per_op()  # warm-up
    off, extra = [], []
    for _ in range(args.rounds):
        plain = us_per_op()
        torch.ops.advisor.probe_start(False, False)
        probed = us_per_op()
        torch.ops.advisor.probe_finish()
        off.append(plain)
        extra.append(probed - plain)
    print(f"{args.library}: {statistics.median(off):.2f} us an op without the probe, "
          f"{statistics.median(extra):.2f} us more with it (median of {args.rounds} rounds)")


if __name__ == "__main__":
    main()
