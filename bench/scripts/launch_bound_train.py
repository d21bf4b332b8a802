#!/usr/bin/env python3
"""The launch-bound benchmark as a user's training script: 150 residual blocks of Linear(64, 64),
GELU and LayerNorm, batch 32, SGD: hundreds of tiny kernels a step, so per-op overhead shows.

    launch_bound_train.py [--steps N] [--report-every 200] [--torch-profiler STEPS] [--device cuda]

Prints the mean step time of every --report-every steps, synchronising only there; with
--torch-profiler N, profiles N steps with torch.profiler (CPU and CUDA activity) and prints their
mean, as vit_train.py does.
"""

import argparse
import time

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + self.norm(nn.functional.gelu(self.fc(x)))


class LaunchBound(nn.Module):
    def __init__(self, blocks, width, classes):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(width) for _ in range(blocks)])
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.blocks(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--report-every", type=int, default=200)
    parser.add_argument("--torch-profiler", type=int, default=0)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    torch.manual_seed(0)
    device = torch.device(args.device)
    model = LaunchBound(150, 64, 10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    inputs = torch.randn(32, 64, device=device)
    labels = torch.randint(0, 10, (32,), device=device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)

    block_start = None
    profiler = None
    profiled_steps = 0
    for step in range(1, args.steps + 1):
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if profiler is not None:
            profiled_steps += 1
            if profiled_steps == args.torch_profiler:
                sync()
                print("torch.profiler: %d steps, %.2f ms/step" % (
                    profiled_steps, 1000 * (time.perf_counter() - profiled_from) / profiled_steps),
                    flush=True)
                profiler.__exit__(None, None, None)
                profiler = None
                args.torch_profiler = 0
        if step % args.report_every == 0:
            sync()
            now = time.perf_counter()
            if block_start is not None:
                print("steps %d-%d: %.2f ms/step" % (step - args.report_every, step - 1,
                                                     1000 * (now - block_start) / args.report_every),
                      flush=True)
            block_start = now
            if args.torch_profiler and profiler is None and step >= 2 * args.report_every:
                profiler = torch.profiler.profile(
                    activities=[torch.profiler.ProfilerActivity.CPU,
                                torch.profiler.ProfilerActivity.CUDA])
                profiler.__enter__()
                profiled_from = time.perf_counter()


if __name__ == "__main__":
    main()
