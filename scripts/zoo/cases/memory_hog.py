"""A step that holds 93% of the GPU's memory at its peak.

``ballast`` zero-fills 93% of the device's memory every forward (sized at export time from the
GPU the case is exported on), holds it until every piece is allocated, and adds one element of
each piece to the features: the caching allocator keeps that much reserved, one input shape away
from running out. The rest is a small MLP, so zero-filling the ballast is also the step's
costliest op. GPU only.

The ballast comes in 1 GiB pieces, not one tensor. Freed at the end of a forward, one large block
stays cached, and the next step's small allocations get split off it; the next forward's
ballast then no longer fits in it and there is no room for a second one (the single-tensor
design ran out of memory on the second step on an H200). A piece that loses its cached block
to a split needs only 1 GiB of fresh device memory, which the other 7% holds.
"""

import torch
from torch import nn

from zoo_case import classes, floats, workload

SHARE = 0.93
PIECE_BYTES = 2**30


class Ballast(nn.Module):
    def __init__(self, pieces: int, piece_elements: int):
        super().__init__()
        self.pieces = pieces
        self.piece_elements = piece_elements

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        held: list[torch.Tensor] = []
        for _ in range(self.pieces):
            held.append(torch.zeros(self.piece_elements, device=x.device))
        # Read only once all pieces exist, so that all of them are alive together.
        for piece in held:
            x = x + piece[0]
        return x


class BallastNet(nn.Module):
    def __init__(self, features, dim, pieces, count):
        super().__init__()
        self.ballast = Ballast(pieces, PIECE_BYTES // 4)
        self.body = nn.Sequential(nn.Linear(features, dim), nn.ReLU(), nn.Linear(dim, count))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(self.ballast(x))


def build(size):
    if size != "cuda":
        raise ValueError("memory_hog has a GPU size only")
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    pieces = int(total * SHARE) // PIECE_BYTES
    return (BallastNet(64, 256, pieces, 10),
            workload([floats(64, 64)], classes(64, 10),
                     description=f"ballast holds {pieces} GiB in 1 GiB pieces, "
                                 f"{SHARE:.0%} of the device"))
