"""A step that holds 93% of the GPU's memory at its peak.

``ballast`` holds a tensor of 93% of the device's memory (sized at export time from the GPU the
case is exported on), allocated at its first forward and zero-filled in every forward, and adds one
of its elements to the logits: one input shape away from running out. The rest is a small MLP, so
zero-filling the ballast is also the step's costliest op. GPU only.

The ballast is kept, not allocated each forward: a freed block that large gets small allocations
split off it (cuBLAS's workspace, for one), and the next step's ballast no longer fits (measured on
an H200 with PyTorch 2.11: out of memory in the second step).
"""

import torch
from torch import nn

from zoo_case import classes, floats, workload

SHARE = 0.93


class Ballast(nn.Module):
    def __init__(self, elements):
        super().__init__()
        self.elements = elements
        self.held = torch.empty(0)  # an attribute, not a buffer: the archive stays small

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.held.numel() == 0:
            self.held = torch.empty(self.elements, device=x.device)
        self.held.zero_()
        return x + self.held[0]


class BallastNet(nn.Module):
    def __init__(self, features, dim, elements, count):
        super().__init__()
        self.ballast = Ballast(elements)
        self.body = nn.Sequential(nn.Linear(features, dim), nn.ReLU(), nn.Linear(dim, count))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ballast(self.body(x))


def build(size):
    if size != "cuda":
        raise ValueError("memory_hog has a GPU size only")
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    elements = int(total * SHARE) // 4
    return (BallastNet(64, 256, elements, 10),
            workload([floats(64, 64)], classes(64, 10),
                     description=f"ballast holds {elements * 4 / 2**30:.1f} GiB, "
                                 f"{SHARE:.0%} of the device"))
