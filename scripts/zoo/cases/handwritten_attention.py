"""Hand-written self-attention over a long sequence among cheap per-token layers.

A sequence model whose stages live in a ModuleDict (``mixers``): a per-token MLP, then
``mixers.context``, self-attention written by hand as
``softmax(q @ k.transpose(-2, -1) * scale) @ v``, which materialises the tokens x tokens score
matrix in forward and backward, then another per-token MLP. F.scaled_dot_product_attention would
never build it.
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, dim = x.shape
        qkv = self.qkv(x).view(batch, tokens, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scores = (q @ k.transpose(-2, -1)) * self.scale
        mixed = scores.softmax(-1) @ v
        return self.proj(mixed.transpose(1, 2).reshape(batch, tokens, dim))


class TokenMLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class SequenceNet(nn.Module):
    def __init__(self, features, dim, heads, count):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.mixers = nn.ModuleDict({"local": TokenMLP(dim), "context": SelfAttention(dim, heads),
                                     "refine": TokenMLP(dim)})
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for mixer in self.mixers.values():
            h = h + mixer(h)
        return self.head(h.mean(1))


def build(size):
    batch, tokens, dim, heads = pick(size, (4, 512, 32, 2), (32, 2048, 256, 4))
    return (SequenceNet(16, dim, heads, 10),
            workload([floats(batch, tokens, 16)], classes(batch, 10),
                     description=f"mixers.context: hand-written attention over {tokens} tokens"))
