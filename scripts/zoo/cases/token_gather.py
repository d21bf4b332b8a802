"""Token jitter by torch.gather in one stage of four, deterministic algorithms on.

A token MLP in a ModuleList of stages; every stage has a ``jitter`` module, which in stage 1
replaces each token by the mean (a sum, then one division) of ``factor`` tokens drawn at random
from its sequence, taken with timm's PatchDropout idiom
``x.gather(1, idx.unsqueeze(-1).expand(-1, -1, C))``. Its backward
(GatherBackward0) scatters the gradient back with scatter_add, which deterministic algorithms make
sort-based on CUDA. The other stages' jitter has factor 0 and passes tokens through (one
TorchScript type, the factor is a plain int attribute).
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class Jitter(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.factor == 0:
            return x
        batch, tokens, channels = x.shape
        idx = torch.randint(0, tokens, (batch, tokens * self.factor), device=x.device)
        picked = x.gather(1, idx.unsqueeze(-1).expand(-1, -1, channels))
        return picked.view(batch, tokens, self.factor, channels).sum(2) / self.factor


class Stage(nn.Module):
    def __init__(self, dim, factor):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.jitter = Jitter(factor)
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.relu(self.fc(self.jitter(self.norm(x))))


class TokenNet(nn.Module):
    def __init__(self, features, dim, count, factor):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.stages = nn.ModuleList([Stage(dim, factor if i == 1 else 0) for i in range(4)])
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for stage in self.stages:
            h = stage(h)
        return self.head(h.mean(1))


def build(size):
    batch, tokens, dim, factor = pick(size, (8, 64, 64, 32), (64, 196, 384, 8))
    return (TokenNet(16, dim, 10, factor),
            workload([floats(batch, tokens, 16)], classes(batch, 10), deterministic=True,
                     description=f"token MLP, stages.1 averages {factor} gathered tokens per "
                                 f"token; deterministic algorithms on"))
