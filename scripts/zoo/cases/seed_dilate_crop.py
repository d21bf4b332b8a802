"""The data-input seed's pipeline: a random dilation of a mask in float, then a random crop.

A small segmentation-style CNN (``encoder``, a Sequential of two convolution stages, then
``head``) trains on crops that the input stage, ``prepare_batch``, makes from raw square images in
4 worker threads: it thresholds the first channel into a mask held in float32, dilates it by a
random radius with ``random_dilation`` (the maximum of every shifted copy: float math on data that
is 0 or 1), stacks it onto the image and only then crops to half the side. Two changes inside the
pipeline, which no worker count can buy, make it several times cheaper: crop first (the dilation
then runs on a quarter of the pixels) and keep the mask bool (one byte, logical or). The planted
answer is input-crop-first naming random_dilation; input-narrow-dtype fires beside it. The model
itself holds no planted problem.

``variant`` builds the seed's later steps for docs/benchmarks.md (its input pipeline section):
"float" (the seed), "bool" (dilation on bool), "crop-first" (crop with the dilation's margin,
dilate on bool, crop to size: the same batches as "bool" up to the roll's wrap-around at the
crop's border, which the margin keeps out).
"""

from typing import Tuple

import torch
from torch import nn

from zoo_case import classes, pick, workload


class SegmentationNet(nn.Module):
    def __init__(self, width, count, side, crop, radius, variant):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(4, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(width, count)
        self.side = side
        self.crop = crop
        self.radius = radius
        self.variant = variant

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x).flatten(1))

    def random_dilation(self, mask: torch.Tensor, r: int) -> torch.Tensor:
        out = mask
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                out = torch.maximum(out, torch.roll(mask, shifts=[dy, dx], dims=[2, 3]))
        return out

    def random_dilation_bool(self, mask: torch.Tensor, r: int) -> torch.Tensor:
        out = mask
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                out = out | torch.roll(mask, shifts=[dy, dx], dims=[2, 3])
        return out

    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        r = int(torch.randint(1, self.radius + 1, [1]))
        top = int(torch.randint(0, self.side - self.crop + 1, [1]))
        left = int(torch.randint(0, self.side - self.crop + 1, [1]))
        if self.variant == "crop-first":
            # The crop plus the dilation's reach, clamped to the image; dilated, then cut to size.
            y0 = max(top - self.radius, 0)
            x0 = max(left - self.radius, 0)
            y1 = min(top + self.crop + self.radius, self.side)
            x1 = min(left + self.crop + self.radius, self.side)
            images = images[:, :, y0:y1, x0:x1]
            mask = self.random_dilation_bool(images[:, :1] > 0.97, r)
            x = torch.cat([images, mask.float()], 1)
            return x[:, :, top - y0:top - y0 + self.crop, left - x0:left - x0 + self.crop], labels
        if self.variant == "bool":
            mask = self.random_dilation_bool(images[:, :1] > 0.97, r).float()
        else:
            mask = self.random_dilation((images[:, :1] > 0.97).float(), r)
        x = torch.cat([images, mask], 1)
        return x[:, :, top:top + self.crop, left:left + self.crop], labels


def build(size, variant="float", workers=4):
    batch, side, radius = pick(size, (8, 64, 2), (32, 256, 3))
    spec = workload([{"shape": [batch, 3, side, side], "dtype": "float32", "init": "rand"}],
                    classes(batch, 10),
                    description="prepare_batch dilates a float mask of raw square images by a "
                                "random radius, then crops to half the side, in 4 workers")
    spec["input_stage"] = {"method": "prepare_batch", "workers": workers}
    return SegmentationNet(8, 10, side, side // 2, radius, variant), spec
