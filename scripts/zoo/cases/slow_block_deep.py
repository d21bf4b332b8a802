"""A deep model where one instance of a repeated block is slow.

Four stages in a ModuleList, each holding a Sequential of six units (24 units of one TorchScript
type).
Every unit normalises, then runs ``mix``: ``iterations`` rounds of ``tanh(h @ weight)``. The
iteration count is a plain int attribute, so all ``Mix`` instances share one type and one
compiled graph; only ``trunk.stages.2.units.4.mix`` runs 12 rounds, the others one. Bisection
must find one instance among 24 at depth six.

``build(size, fixed=True)`` is the same model with the planted unit running one round like the
others: the after of the zoo's diff pair (scripts/zoo/diff_pairs.py).
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class Mix(nn.Module):
    def __init__(self, dim, iterations):
        super().__init__()
        self.iterations = iterations
        self.weight = nn.Parameter(torch.randn(dim, dim) * dim ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x
        for _ in range(self.iterations):
            h = torch.tanh(h @ self.weight)
        return h


class Unit(nn.Module):
    def __init__(self, dim, iterations):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mix = Mix(dim, iterations)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.mix(self.norm(x))


class Stage(nn.Module):
    def __init__(self, dim, slow_unit, slow_rounds):
        super().__init__()
        self.units = nn.Sequential(*[Unit(dim, slow_rounds if u == slow_unit else 1)
                                     for u in range(6)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.units(x)


class Trunk(nn.Module):
    def __init__(self, dim, slow_stage, slow_unit, slow_rounds):
        super().__init__()
        self.stages = nn.ModuleList([Stage(dim, slow_unit if s == slow_stage else -1, slow_rounds)
                                     for s in range(4)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for stage in self.stages:
            x = stage(x)
        return x


class DeepNet(nn.Module):
    def __init__(self, features, dim, count, slow_rounds):
        super().__init__()
        self.stem = nn.Linear(features, dim)
        self.trunk = Trunk(dim, slow_stage=2, slow_unit=4, slow_rounds=slow_rounds)
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.trunk(self.stem(x)))


def build(size, fixed=False):
    batch, dim = pick(size, (256, 128), (8192, 1024))
    planted = "one round like the others" if fixed else "12 rounds, the others one"
    return (DeepNet(32, dim, 10, slow_rounds=1 if fixed else 12),
            workload([floats(batch, 32)], classes(batch, 10),
                     description="24 units of one type; trunk.stages.2.units.4.mix runs "
                                 + planted))
