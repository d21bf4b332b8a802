"""A mask cleaned up in float: morphology on data that is 0 or 1 by nature.

A small classifier (``features``, a Sequential of two convolution stages, then ``head``) trains
on images whose input stage, ``prepare_batch`` (2 workers), thresholds the first channel into a
mask held in float32 and closes its holes with ``close_mask``: a dilation and an erosion, each a
max-pooling pass over the float mask, repeated, before stacking it onto the image. The images are
already at the model's size, so nothing is cropped. Every pass moves four bytes per pixel where a
bool or uint8 mask would move one: input-narrow-dtype names close_mask. The model itself holds no
planted problem.
"""

from typing import Tuple

import torch
from torch import nn
import torch.nn.functional as F

from zoo_case import classes, pick, workload


class MaskedNet(nn.Module):
    def __init__(self, width, count, passes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(4, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(width, count)
        self.passes = passes

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).flatten(1))

    def close_mask(self, mask: torch.Tensor) -> torch.Tensor:
        for _ in range(self.passes):
            mask = F.max_pool2d(mask, 5, 1, 2)            # dilate
            mask = 1 - F.max_pool2d(1 - mask, 5, 1, 2)    # erode
        return mask

    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        mask = (images[:, :1] > 0.9).float()
        mask = self.close_mask(mask)
        return torch.cat([images, mask], 1), labels


def build(size):
    batch, side, passes = pick(size, (8, 32, 4), (64, 128, 4))
    spec = workload([{"shape": [batch, 3, side, side], "dtype": "float32", "init": "rand"}],
                    classes(batch, 10),
                    description="prepare_batch closes a thresholded mask with float max-pooling "
                                "passes, in 2 workers")
    spec["input_stage"] = {"method": "prepare_batch", "workers": 2}
    return MaskedNet(8, 10, passes), spec
