"""A small batch on a GPU: a wide MLP trained four samples at a time.

Eight residual layers of width 2048 (``layers``, a Sequential of named blocks ``l0``..``l7``) at
batch 4: each matrix multiply reads its whole weight to compute four rows, so the GPU finishes
every kernel quickly and idles while the host launches the next, and almost all of its memory
stays free. A larger batch does more work per step at little extra step time. GPU only.
"""

from collections import OrderedDict

import torch
from torch import nn

from zoo_case import classes, floats, workload


class Residual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.relu(self.fc(self.norm(x)))


class WideMLP(nn.Module):
    def __init__(self, features, dim, depth, count):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.layers = nn.Sequential(OrderedDict((f"l{i}", Residual(dim)) for i in range(depth)))
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.layers(self.embed(x)))


def build(size):
    if size != "cuda":
        raise ValueError("small_batch has a GPU size only")
    return (WideMLP(256, 2048, 8, 100),
            workload([floats(4, 256)], classes(4, 100),
                     description="8 residual layers of width 2048 at batch 4"))
