"""A two-tower recommender MLP in float32 whose item tower has one very wide layer.

Towers in a ModuleDict (``towers.user``, ``towers.item``), each a Sequential of two Linear layers
and a group sum, then an interaction layer. ``towers.item.2`` is 16 times wider than any other
layer (its output is summed in groups of 16). Every
matrix multiply runs in float32: on an Ampere-or-newer GPU, without TF32 or bf16 autocast, on
CUDA cores instead of tensor cores.

``build(size, fixed=True)`` is the same model with ``towers.item.2`` as wide as the user tower's
layer (groups of one): the after of the zoo's diff pair (scripts/zoo/diff_pairs.py).
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class GroupSum(nn.Module):
    """Sums each group of ``pieces`` consecutive features (its backward is a free expand)."""

    def __init__(self, pieces):
        super().__init__()
        self.pieces = pieces

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size(0), -1, self.pieces).sum(-1)


def tower(features, width, pieces):
    return nn.Sequential(nn.Linear(features, width), nn.ReLU(), nn.Linear(width, pieces * width),
                         GroupSum(pieces))


class TwoTower(nn.Module):
    def __init__(self, features, width, count, item_pieces):
        super().__init__()
        self.towers = nn.ModuleDict({"user": tower(features, width, 1),
                                     "item": tower(features, width, item_pieces)})
        self.interact = nn.Linear(2 * width, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        user = self.towers["user"](x)
        item = self.towers["item"](x)
        return self.interact(torch.cat([user, item], dim=1))


def build(size, fixed=False):
    batch, width = pick(size, (512, 64), (16384, 512))
    pieces = 1 if fixed else 16
    return (TwoTower(64, width, 10, item_pieces=pieces),
            workload([floats(batch, 64)], classes(batch, 10),
                     description=f"fp32 two-tower MLP; towers.item.2 maps {width} to "
                                 f"{pieces * width} features"))
