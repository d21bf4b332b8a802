"""A photo classifier's training script with its augmentations in a pipeline class of its own,
written the way people write them, for advisor's script-mode tests (issue #33): nothing here
knows about advisor.

The pipeline keeps its steps in `self.steps` (not torchvision's `transforms`) and applies them in
order: a Gaussian blur written as two separable convolutions, then a random 160x160 crop of the
256x256 image, in that order: the blur runs on pixels the crop throws away. The settings live in
one dict, as a config file's would.

    python blur_crop_train.py [--workers N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

CONFIG = {
    "image_size": 256,
    "crop": 160,
    "blur_sigma": 3.0,
    "batch_size": 8,
    "lr": 0.05,
    "steps": 400,
}


class Pipeline:
    """Applies its steps one after the other."""

    def __init__(self, *steps):
        self.steps = steps

    def __call__(self, image):
        for step in self.steps:
            image = step(image)
        return image


class GaussianBlur:
    def __init__(self, sigma):
        radius = int(math.ceil(3 * sigma))
        offsets = torch.arange(-radius, radius + 1, dtype=torch.float32)
        weights = torch.exp(-offsets ** 2 / (2 * sigma ** 2))
        self.weights = weights / weights.sum()
        self.radius = radius

    def __call__(self, image):
        channels = image.shape[0]
        across = self.weights.view(1, 1, 1, -1).expand(channels, 1, 1, -1)
        down = self.weights.view(1, 1, -1, 1).expand(channels, 1, -1, 1)
        image = F.conv2d(image.unsqueeze(0), across, padding=(0, self.radius), groups=channels)
        image = F.conv2d(image, down, padding=(self.radius, 0), groups=channels)
        return image.squeeze(0)


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, image):
        top = random.randint(0, image.shape[-2] - self.size)
        left = random.randint(0, image.shape[-1] - self.size)
        return image[:, top:top + self.size, left:left + self.size]


class Photos(Dataset):
    def __init__(self, length, augment):
        self.length = length
        self.augment = augment

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        size = CONFIG["image_size"]
        image = torch.rand(3, size, size, generator=generator)
        return self.augment(image), index % 10


def make_model():
    return nn.Sequential(
        nn.Conv2d(3, 16, 5, stride=4), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()

    torch.manual_seed(0)
    random.seed(0)
    augment = Pipeline(GaussianBlur(CONFIG["blur_sigma"]), RandomCrop(CONFIG["crop"]))
    data = Photos(CONFIG["steps"] * CONFIG["batch_size"], augment)
    loader = DataLoader(data, batch_size=CONFIG["batch_size"], shuffle=True,
                        num_workers=args.workers)
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"])
    for images, labels in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
    print("loss %.4f" % loss.item(), flush=True)


if __name__ == "__main__":
    main()
