#!/usr/bin/env python3
"""The launch-bound benchmark as a user's training script: 150 residual blocks of Linear(64, 64),
GELU and LayerNorm, batch 32, SGD: hundreds of tiny kernels a step, so per-op overhead shows.

    launch_bound_train.py [--steps N] [--report-every 200] [--torch-profiler STEPS] [--device cuda]

Prints its own step times as vit_train.py does (step_report.py).
"""

import argparse
import os
import sys

import torch
from step_report import StepReport
from torch import nn

# The model is the TorchScript benchmark's (bench/make_launch_bound.py), here trained eagerly.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from make_launch_bound import LaunchBound  # noqa: E402


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

    report = StepReport(args.report_every, args.torch_profiler, cuda=device.type == "cuda")
    for step in range(1, args.steps + 1):
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        report.step_done(step)


if __name__ == "__main__":
    main()
