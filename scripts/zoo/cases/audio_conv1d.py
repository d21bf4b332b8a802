"""A 1-D convolutional audio encoder whose one dilated layer has a very wide kernel.

The encoder is a ModuleList of dilated 1-D convolution layers over a waveform's feature frames;
``encoder.3.temporal`` uses a kernel of 63 taps where the others use 3. The step is mostly
convolutions, run with cuDNN's default algorithm heuristics: torch.backends.cudnn.benchmark would
time the algorithms once per shape and keep the fastest.

``build(size, fixed=True)`` is the same model with ``encoder.3.temporal`` at 3 taps like the
others: the after of the zoo's diff pair (scripts/zoo/diff_pairs.py).
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class TemporalLayer(nn.Module):
    def __init__(self, channels, kernel, dilation):
        super().__init__()
        self.temporal = nn.Conv1d(channels, channels, kernel, dilation=dilation,
                                  padding=dilation * (kernel // 2))
        self.gate = nn.Conv1d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.sigmoid(self.gate(x)) * torch.tanh(self.temporal(x))


class AudioEncoder(nn.Module):
    def __init__(self, bins, channels, count, wide_taps):
        super().__init__()
        self.frontend = nn.Conv1d(bins, channels, 1)
        self.encoder = nn.ModuleList([TemporalLayer(channels, wide_taps if i == 3 else 3, 2 ** i)
                                      for i in range(5)])
        self.classify = nn.Linear(channels, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.frontend(x)
        for layer in self.encoder:
            h = layer(h)
        return self.classify(h.mean(-1))


def build(size, fixed=False):
    batch, bins, frames, channels = pick(size, (4, 40, 1024, 32), (64, 80, 4096, 128))
    taps = 3 if fixed else 63
    return (AudioEncoder(bins, channels, 10, wide_taps=taps),
            workload([floats(batch, bins, frames)], classes(batch, 10),
                     description=f"dilated 1-D conv encoder; encoder.3.temporal has {taps} taps, "
                                 f"the other layers 3"))
