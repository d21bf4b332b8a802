"""The data-input seed's pipeline as a training script written the way people write them, for
advisor's script-mode tests (issue #14): nothing here knows about advisor.

Synthetic 256x256 images with a mask of their brightest pixels; the mask grows by a random radius
(dilation written the slow way: a convolution over the float mask, then a comparison back to
0/1), then a random 224x224 crop of image and mask, in that order: the dilation runs at the full
size and in float. A DataLoader with worker processes feeds a small CNN trained with SGD.

    python pipeline_train.py [--workers N] [--batch N] [--epochs N] [--device cpu|cuda]
                             [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for transform in self.transforms:
            sample = transform(sample)
        return sample


class RandomDilation:
    """Grows the mask by 6 to `max_radius` pixels in every direction.

    No smaller radius: a 5x5 convolution costs no more than the image's torch.rand on a current
    torch, and the tests name this line as the stage's heaviest (CI's modern lane named the
    torch.rand once, its batches having drawn small radii).
    """

    def __init__(self, max_radius):
        self.max_radius = max_radius

    def __call__(self, sample):
        image, mask = sample
        radius = random.randint(6, self.max_radius)
        kernel = torch.ones(1, 1, 2 * radius + 1, 2 * radius + 1)
        grown = F.conv2d(mask.unsqueeze(0), kernel, padding=radius).squeeze(0)
        return image, (grown > 0).float()


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, sample):
        image, mask = sample
        top = random.randint(0, image.shape[-2] - self.size)
        left = random.randint(0, image.shape[-1] - self.size)
        window = (slice(None), slice(top, top + self.size), slice(left, left + self.size))
        return image[window], mask[window]


class Scenes(Dataset):
    def __init__(self, length, transform):
        self.length = length
        self.transform = transform

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        image = torch.rand(3, 256, 256, generator=generator)
        mask = (image[:1] > 0.98).float()
        image, mask = self.transform((image, mask))
        label = int(mask.mean() > 0.25)
        return torch.cat([image, mask]), label


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(4, 16, 5, stride=4), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        return self.head(self.features(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tag", default="")
    args = parser.parse_args()

    torch.manual_seed(0)
    random.seed(0)
    data = Scenes(4096, Compose([RandomDilation(max_radius=12), RandomCrop(224)]))
    loader = DataLoader(data, batch_size=args.batch, shuffle=True, num_workers=args.workers)
    model = SmallCNN().to(args.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(args.epochs):
        for images, labels in loader:
            images, labels = images.to(args.device), labels.to(args.device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
        print("epoch %d: loss %.4f" % (epoch, loss.item()), flush=True)


if __name__ == "__main__":
    main()
