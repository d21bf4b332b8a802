"""Host-side augmentation that the training step waits for: the input stage dominates.

A small image classifier (``trunk``, a ModuleDict of two convolution stages, then ``head``) trains
on batches that the workload's input stage, ``prepare_batch``, makes from raw 64x64 images on the
host every step, on the training thread (``workers: 0``): a random horizontal flip, a brightness
and colour jitter, two passes of a 9x9 Gaussian blur (a depthwise convolution), a resize to 32x32
and a per-channel standardisation. The augmentation costs several times the model's own step, so
the step spends most of its time waiting for its batch: data-loader-stall names
dataloader-workers, which prepares batches in worker threads ahead of the step. The model itself
holds no planted problem.
"""

from typing import Tuple

import torch
from torch import nn
import torch.nn.functional as F

from zoo_case import classes, pick, workload


class SmallConvNet(nn.Module):
    def __init__(self, width, count):
        super().__init__()
        self.trunk = nn.ModuleDict({
            "early": nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)),
            "late": nn.Sequential(nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1)),
        })
        self.head = nn.Linear(2 * width, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.trunk["late"](self.trunk["early"](x))
        return self.head(x.flatten(1))

    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        # Host tensors only: the kernel is built here, not kept as a buffer that follows the model
        # to the GPU.
        batch = images.shape[0]
        flip = torch.rand([batch, 1, 1, 1]) < 0.5
        x = torch.where(flip, images.flip(3), images)
        x = x * (0.8 + 0.4 * torch.rand([batch, 1, 1, 1])) + 0.1 * torch.randn([batch, 3, 1, 1])
        taps = torch.exp(-(torch.arange(-4, 5).float() ** 2) / 8.0)
        kernel = (taps.unsqueeze(1) * taps.unsqueeze(0)) / taps.sum() ** 2
        kernel = kernel.expand(3, 1, 9, 9).contiguous()
        for _ in range(2):
            x = F.conv2d(x, kernel, padding=4, groups=3)
        x = F.interpolate(x, size=[32, 32], mode="bilinear", align_corners=False)
        x = (x - x.mean([0, 2, 3], keepdim=True)) / (x.std([0, 2, 3], keepdim=True) + 1e-5)
        return x, labels


def build(size):
    batch = pick(size, 16, 128)
    spec = workload([{"shape": [batch, 3, 64, 64], "dtype": "float32", "init": "rand"}],
                    classes(batch, 10),
                    description="prepare_batch augments raw 64x64 images on the host every step; "
                                "the step waits for it")
    spec["input_stage"] = {"method": "prepare_batch", "workers": 0}
    return SmallConvNet(8, 10), spec
