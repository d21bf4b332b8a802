"""A float32 CNN in the default NCHW layout, with one residual block far wider than the others.

A stem and five residual blocks in a Sequential (``features``). Each block expands with a 5x5
convolution (``expand``) and projects back with a 1x1 one; the fourth block, ``features.4``,
expands to 8 times the width of the others (so it is another TorchScript type: the convolutions'
channel counts are constants). On a tensor-core GPU every convolution runs in NCHW and float32,
so cuDNN transposes around them: channels-last (and mixed precision) is the fix the rules name.
On any device ``features.4.expand`` is where the time goes.

``build(size, fixed=True)`` is the same model with ``features.4`` as narrow as the other blocks:
the after of the zoo's diff pair (scripts/zoo/diff_pairs.py).
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class Residual(nn.Module):
    def __init__(self, channels, hidden):
        super().__init__()
        self.expand = nn.Conv2d(channels, hidden, 5, padding=2, bias=False)
        self.bn = nn.BatchNorm2d(hidden)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.project(torch.relu(self.bn(self.expand(x))))


class WideBlockCNN(nn.Module):
    def __init__(self, channels, wide_block, widening, count):
        super().__init__()
        blocks = [Residual(channels, channels * (widening if i == wide_block else 1))
                  for i in range(5)]
        self.features = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), *blocks)
        self.classifier = nn.Linear(channels, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x).mean((2, 3)))


def build(size, fixed=False):
    batch, image, channels = pick(size, (4, 32, 16), (64, 56, 64))
    widening = 1 if fixed else 8
    return (WideBlockCNN(channels, 3, widening, 10),
            workload([floats(batch, 3, image, image)], classes(batch, 10),
                     description=f"fp32 NCHW CNN; features.4 expands {channels} channels to "
                                 f"{channels * widening}, the other blocks to {channels}"))
