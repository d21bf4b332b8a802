"""Shapes that change every step: a sequence-length curriculum inside the model.

``body.curriculum`` (a plain attribute of a plain attribute) counts its calls and trains on the
first ``start + calls * grow`` tokens of each sequence, up to all of them: a length warm-up that
makes its wide hidden activation (and its gradient) a new size each step. On a GPU the caching
allocator cannot reuse its cached blocks for the larger tensors and calls cudaMalloc every step.
The curriculum is the costliest module at every length; the rest of the model is narrow.
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class Curriculum(nn.Module):
    def __init__(self, dim, hidden, start, grow):
        super().__init__()
        self.start = start
        self.grow = grow
        self.calls = 0
        self.expand = nn.Parameter(torch.randn(dim, hidden) * dim ** -0.5)
        self.readout = nn.Parameter(torch.randn(hidden, dim) * hidden ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        length = min(x.size(1), self.start + self.calls * self.grow)
        h = torch.relu(x[:, :length] @ self.expand)
        return h.mean(1) @ self.readout


class Body(nn.Module):
    def __init__(self, dim, hidden, start, grow):
        super().__init__()
        self.curriculum = Curriculum(dim, hidden, start, grow)
        self.local = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.local(self.curriculum(x)))


class CurriculumNet(nn.Module):
    def __init__(self, features, dim, hidden, start, grow, count):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.body = Body(dim, hidden, start, grow)
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(self.embed(x)))


def build(size):
    # (batch, tokens, dim, hidden, start, grow): the length reaches the sequence after
    # (tokens - start) / grow calls, far more than one advisor run makes.
    batch, tokens, dim, hidden, start, grow = pick(size, (8, 1024, 32, 1024, 256, 4),
                                                   (8, 8192, 256, 4096, 1024, 16))
    return (CurriculumNet(16, dim, hidden, start, grow, 10),
            workload([floats(batch, tokens, 16)], classes(batch, 10),
                     description=f"body.curriculum trains on {start} + {grow} x calls tokens: "
                                 f"shapes change every step"))
