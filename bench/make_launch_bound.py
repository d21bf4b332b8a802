#!/usr/bin/env python3
"""Exports the launch-bound benchmark model: 150 residual blocks of Linear(64, 64), GELU and
LayerNorm, batch 32, SGD; many tiny kernels, so per-op probe overhead shows.

    make_launch_bound.py OUT.pt [--device cuda] [--blocks 150] [--cuda-graphs]

--cuda-graphs writes a workload that replays its step as a CUDA graph (scripts/gpu-check.sh bisects
it: the windows must run eagerly and still see the ops).
"""

import argparse
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import advisor_export  # noqa: E402


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + self.norm(torch.nn.functional.gelu(self.fc(x)))


class LaunchBound(nn.Module):
    def __init__(self, blocks, width, classes):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(width) for _ in range(blocks)])
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.blocks(x))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--blocks", type=int, default=150)
    parser.add_argument("--cuda-graphs", action="store_true")
    args = parser.parse_args()
    batch, width, classes = 32, 64, 10
    advisor_export.export(
        LaunchBound(args.blocks, width, classes).to(args.device), args.output,
        inputs=[{"shape": [batch, width], "dtype": "float32", "init": "randn"}],
        target={"shape": [batch], "dtype": "int64", "init": "randint", "high": classes},
        loss="cross_entropy", optimizer={"name": "sgd", "lr": 0.01, "momentum": 0.9},
        device=args.device, cuda_graphs=args.cuda_graphs,
        description=f"launch-bound benchmark: {args.blocks} tiny residual blocks"
                    + (", replayed as a CUDA graph" if args.cuda_graphs else ""))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
