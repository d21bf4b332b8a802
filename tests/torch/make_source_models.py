#!/usr/bin/env python3
"""Exports the model the op-source test reads: `make_source_models.py OUTDIR` writes
OUTDIR/calls.pt, scripted with debug info, so its nodes keep this file's lines."""

import os
import sys

import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x) * x  # GATE_LINE


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.gate = Gate()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.body(x)  # BODY_LINE
        return self.gate(h)


if __name__ == "__main__":
    torch.jit.script(Net()).save(os.path.join(sys.argv[1], "calls.pt"))
