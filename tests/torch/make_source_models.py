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


class Norm(nn.Module):
    """Calls a function of torch's own Python: its op sits in torch/nn/functional.py."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.layer_norm(x, (4,))  # NORM_LINE


class Head(nn.Module):
    """Two instances with other activations: TorchScript names the second's type
    `__torch__.___torch_mangle_N.Head`."""

    def __init__(self, activation: nn.Module):
        super().__init__()
        self.activation = activation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.activation(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.heads = nn.Sequential(Head(nn.ReLU()), Head(nn.Tanh()))
        self.gate = Gate()
        self.norm = Norm()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.body(x)  # BODY_LINE
        return self.norm(self.gate(self.heads(h)))  # NORM_CALL_LINE


if __name__ == "__main__":
    torch.jit.script(Net()).save(os.path.join(sys.argv[1], "calls.pt"))
