"""A clean MLP-Mixer: nothing planted, so advisor must raise no high-severity finding.

Patch embedding, six identical mixer blocks in a Sequential (token-mixing MLP across patches,
channel-mixing MLP across features) and a linear head. The GPU size runs in bfloat16 at a batch
that keeps the GPU busy, so neither the float32-matmul rule nor the idle-GPU rules apply.
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class MLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class MixerBlock(nn.Module):
    def __init__(self, patches, dim):
        super().__init__()
        self.token_norm = nn.LayerNorm(dim)
        self.token_mix = MLP(patches, patches * 2)
        self.channel_norm = nn.LayerNorm(dim)
        self.channel_mix = MLP(dim, dim * 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.token_mix(self.token_norm(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mix(self.channel_norm(x))


class Mixer(nn.Module):
    def __init__(self, features, patches, dim, depth, count):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.blocks = nn.Sequential(*[MixerBlock(patches, dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.blocks(self.embed(x))).mean(1))


def build(size):
    batch, patches, dim = pick(size, (8, 64, 64), (128, 256, 1024))
    model = Mixer(48, patches, dim, 6, 10)
    dtype = pick(size, "float32", "bfloat16")
    if dtype == "bfloat16":
        model = model.to(torch.bfloat16)
    return (model,
            workload([floats(batch, patches, 48, dtype=dtype)], classes(batch, 10),
                     description=f"clean MLP-Mixer, 6 identical blocks, {dtype}"))
