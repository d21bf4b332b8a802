"""Augmentation noise drawn on the host every step and copied to the device from pageable memory.

A spectrogram classifier whose front end (``frontend.augment``, a plain attribute of a plain
attribute) draws its noise with ``torch.randn(x.shape)``, which makes a CPU tensor, and adds it
after ``.to(x.device)``: on a GPU every step copies an input-sized tensor from pageable host
memory, and the host spends the time drawing it. The rest of the model pools the frequency axis
and runs two small layers.
"""

import torch
from torch import nn
import torch.nn.functional as F

from zoo_case import classes, floats, pick, workload


class HostNoise(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        noise = torch.randn(x.shape).to(x.device)
        return x + self.scale * noise


class FrontEnd(nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.augment = HostNoise(0.1)
        self.pool = pool

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.avg_pool1d(self.augment(x), self.pool)


class SpectrogramNet(nn.Module):
    def __init__(self, bins, pool, dim, count):
        super().__init__()
        self.frontend = FrontEnd(pool)
        self.encode = nn.Linear(bins // pool, dim)
        self.classify = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classify(torch.relu(self.encode(self.frontend(x))).mean(1))


def build(size):
    batch, frames, bins = pick(size, (8, 512, 256), (32, 512, 256))
    return (SpectrogramNet(bins, 16, 64, 10),
            workload([floats(batch, frames, bins)], classes(batch, 10),
                     description="frontend.augment draws input-sized noise on the host each step "
                                 "and copies it to the device"))
