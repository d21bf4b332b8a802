"""The two-block MLP the inductor-compiled tests and recordings train (issue #29): small graphs,
so that inductor's C++ compile stays short on a CPU. One definition for inductor_mlp_train.py, the
probe's test_provenance.py and scripts/record_compiled_provenance.py --cpu-mlp.

With `head`, a Linear of that many outputs after the blocks holds most of the work (the instance
the bisection's levels by provenance are to name: inductor_mlp_train.py --head). With
`drop_tokens`, a `drop` instance between the blocks keeps every other token by a gather, as
timm's PatchDropout does after the patch embedding: under torch.use_deterministic_algorithms(True)
inductor turns the gather's backward into an in-place scatter fallback (`aten.scatter_reduce_`),
an extern call its output code writes no Source Nodes comment for.
"""

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, width)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(x)))


class TokenDrop(nn.Module):
    """Keeps every other token of a (batch, tokens, width) input."""

    def forward(self, x):
        kept = torch.arange(0, x.shape[1], 2, device=x.device)
        index = kept.view(1, -1, 1).expand(x.shape[0], -1, x.shape[2])
        return torch.gather(x, 1, index)


class Mlp(nn.Module):
    def __init__(self, width, hidden, drop_tokens=False, head=0):
        super().__init__()
        if drop_tokens:
            self.drop = TokenDrop()
        self.blocks = nn.ModuleList([Block(width, hidden), Block(width, hidden)])
        self.head = nn.Linear(width, head) if head else None

    def forward(self, x):
        x = self.blocks[0](x)
        if hasattr(self, "drop"):
            x = self.drop(x)
        x = self.blocks[1](x)
        return self.head(x) if self.head is not None else x
