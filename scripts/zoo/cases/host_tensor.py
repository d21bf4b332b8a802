"""A relative-position table rebuilt on the host every step and copied to the device.

A token mixer in a Sequential of named stages (``blocks.pos_mix.table``, an OrderedDict
Sequential). ``table`` computes a tokens x tokens relative-position weighting with ``torch.arange``
and element-wise ops on the CPU (no ``device=``), then moves it to the input's device with
``.to(x.device)``, every call: on a GPU a host-to-device copy from pageable memory each step, and
host work that a buffer registered once would avoid. The table then mixes the tokens (a batched
matmul). The other stages are small per-token MLPs.
"""

from collections import OrderedDict

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class PositionTable(nn.Module):
    def __init__(self, decay):
        super().__init__()
        self.decay = decay

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = x.size(1)
        pos = torch.arange(tokens, dtype=torch.float32)
        distance = (pos.unsqueeze(0) - pos.unsqueeze(1)).abs()
        table = torch.exp(-distance / self.decay) * torch.cos(distance)
        table = (table / table.sum(1, keepdim=True)).to(x.device)
        return torch.matmul(table, x)


class PositionMix(nn.Module):
    def __init__(self, dim, decay):
        super().__init__()
        self.table = PositionTable(decay)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.out(self.table(x))


class TokenMLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.tanh(self.fc(x))


class PositionNet(nn.Module):
    def __init__(self, features, dim, count):
        super().__init__()
        self.blocks = nn.Sequential(OrderedDict([
            ("embed", nn.Linear(features, dim)), ("pre", TokenMLP(dim)),
            ("pos_mix", PositionMix(dim, 16.0)), ("post", TokenMLP(dim))]))
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(x).mean(1))


def build(size):
    batch, tokens, dim = pick(size, (8, 1024, 32), (32, 2048, 256))
    return (PositionNet(16, dim, 10),
            workload([floats(batch, tokens, 16)], classes(batch, 10),
                     description=f"blocks.pos_mix.table rebuilds a {tokens}x{tokens} table on "
                                 f"the host each step and copies it to the device"))
