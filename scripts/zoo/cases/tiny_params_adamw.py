"""Hundreds of small parameter tensors updated by a plain (per-tensor) AdamW.

A stack of 96 feature-wise adapters (a ModuleList), each holding a LayerNorm and its own scale
and shift vectors, on narrow features: the forward and backward are cheap, but AdamW updates 388
tensors one at a time, several small ops each, so the optimizer phase takes a large share of the
step. A fused or foreach optimizer does the update in a few kernels.
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload

ADAMW = {"name": "adamw", "lr": 0.001}


class Adapter(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.scale = nn.Parameter(torch.ones(dim))
        self.shift = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.tanh(self.norm(x) * self.scale + self.shift)


class AdapterStack(nn.Module):
    def __init__(self, features, dim, depth, count):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.adapters = nn.ModuleList([Adapter(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for adapter in self.adapters:
            h = adapter(h)
        return self.head(h)


def build(size):
    batch, dim = pick(size, (16, 64), (64, 256))
    return (AdapterStack(16, dim, 96, 10),
            workload([floats(batch, 16)], classes(batch, 10), optimizer=ADAMW,
                     description="96 adapters, 388 parameter tensors, plain AdamW"))
