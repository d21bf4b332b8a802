"""Every input worker busy and the step still waiting: the pipeline, not the worker count, limits.

A small classifier (``trunk``, a Sequential that first averages 4x4 pixels, then two convolution
stages, then ``head``) trains on batches that the input stage, ``prepare_batch``, makes from images already at the model's size:
a random flip, a brightness jitter and ``soften``, twenty passes of a 7x7 blur (a depthwise
convolution) per batch. It runs in one worker thread per CPU the exporting process may use (read
when the case is exported, on the machine that then runs it), so there are as many workers as
physical cores or more, and a batch costs several times the model's step: every worker is busy
for the whole window and the step still waits for its batch. More workers cannot help there
(data-loader-stall stays silent); input-pipeline-bound names the heaviest transform instead.
Nothing is cropped and nothing holds a mask, so input-crop-first and input-narrow-dtype have
nothing to say. The model itself holds no planted problem.

One worker per CPU, not more: a worker beyond the cores starves the batch the step needs next
while the others fill the queue ahead of it and then idle (scripts/zoo/README.md).
"""

import os
from typing import Tuple

import torch
from torch import nn
import torch.nn.functional as F

from zoo_case import classes, pick, workload


class SmallNet(nn.Module):
    def __init__(self, width, count, passes):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.AvgPool2d(4), nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(width, count)
        self.passes = passes

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.trunk(x).flatten(1))

    def soften(self, x: torch.Tensor) -> torch.Tensor:
        # Host tensors only: the kernel is built here, not kept as a buffer that follows the model
        # to the GPU.
        taps = torch.exp(-(torch.arange(-3, 4).float() ** 2) / 4.0)
        kernel = (taps.unsqueeze(1) * taps.unsqueeze(0)) / taps.sum() ** 2
        kernel = kernel.expand(3, 1, 7, 7).contiguous()
        for _ in range(self.passes):
            x = F.conv2d(x, kernel, padding=3, groups=3)
        return x

    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        batch = images.shape[0]
        flip = torch.rand([batch, 1, 1, 1]) < 0.5
        x = torch.where(flip, images.flip(3), images)
        x = x * (0.8 + 0.4 * torch.rand([batch, 1, 1, 1]))
        return self.soften(x), labels


def build(size):
    batch, side = pick(size, (16, 64), (64, 128))
    workers = len(os.sched_getaffinity(0))
    spec = workload([{"shape": [batch, 3, side, side], "dtype": "float32", "init": "rand"}],
                    classes(batch, 10),
                    description=f"prepare_batch blurs images twenty times in {workers} workers, one "
                                "per CPU, and the step still waits for them")
    spec["input_stage"] = {"method": "prepare_batch", "workers": workers}
    return SmallNet(8, 10, 20), spec
