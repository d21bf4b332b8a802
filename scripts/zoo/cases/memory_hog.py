"""A step that holds 93% of the GPU's memory at its peak.

``ballast`` allocates a zero-filled tensor of 93% of the device's memory every forward (sized at
export time from the GPU the case is exported on) and adds one of its elements to the features:
the caching allocator keeps that much reserved, one input shape away from running out. The rest
is a small MLP, so zero-filling the ballast is also the step's costliest op. GPU only.
"""

import torch
from torch import nn

from zoo_case import classes, floats, workload

SHARE = 0.93


class Ballast(nn.Module):
    def __init__(self, elements):
        super().__init__()
        self.elements = elements

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ballast = torch.zeros(self.elements, device=x.device)
        return x + ballast[0]


class BallastNet(nn.Module):
    def __init__(self, features, dim, elements, count):
        super().__init__()
        self.ballast = Ballast(elements)
        self.body = nn.Sequential(nn.Linear(features, dim), nn.ReLU(), nn.Linear(dim, count))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(self.ballast(x))


def build(size):
    if size != "cuda":
        raise ValueError("memory_hog has a GPU size only")
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    elements = int(total * SHARE) // 4
    return (BallastNet(64, 256, elements, 10),
            workload([floats(64, 64)], classes(64, 10),
                     description=f"ballast holds {elements * 4 / 2**30:.1f} GiB, "
                                 f"{SHARE:.0%} of the device"))
