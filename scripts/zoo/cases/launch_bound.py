"""A launch-bound model: hundreds of tiny element-wise ops on a small tensor every step.

128 gated cells in a ModuleDict (``cells.c000``..``cells.c127``), each a handful of element-wise
ops with two parameter vectors on a 32 x 64 tensor. A GPU runs each kernel in a few microseconds
and then waits for the host to launch the next: thousands of launches per step and a mostly idle
GPU. CUDA graphs (or torch.compile) remove the launch gaps. GPU only: on a CPU there is no launch
to wait for.
"""

import torch
from torch import nn

from zoo_case import classes, floats, workload


class GatedCell(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(x * self.gain + self.bias)
        return x + gate * torch.tanh(x) - 0.5 * gate


class CellChain(nn.Module):
    def __init__(self, dim, cells, count):
        super().__init__()
        self.cells = nn.ModuleDict({f"c{i:03d}": GatedCell(dim) for i in range(cells)})
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for cell in self.cells.values():
            x = cell(x)
        return self.head(x)


def build(size):
    if size != "cuda":
        raise ValueError("launch_bound has a GPU size only")
    return (CellChain(64, 128, 10),
            workload([floats(32, 64)], classes(32, 10),
                     description="128 tiny gated cells on a 32 x 64 tensor: launch-bound"))
