#!/usr/bin/env python3
# quick CNN baseline on our synthetic "glyphs" set -- priya, nov
import argparse
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)


class GlyphDataset(Dataset):
    """10 classes of noisy 32x32 RGB blobs; each class has its own blob position."""

    def __init__(self, n_samples, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 10, (n_samples,), generator=g)
        self.images = 0.5 * torch.randn(n_samples, 3, 32, 32, generator=g)
        yy, xx = torch.meshgrid(torch.arange(32.0), torch.arange(32.0), indexing="ij")
        for c in range(10):
            cy, cx = 6 + 2 * c, 25 - 2 * c
            blob = torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 18.0)
            self.images[self.labels == c] += blob

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.images[idx]
        if random.random() < 0.5:
            img = img + 0.05 * torch.randn_like(img)
        return img, self.labels[idx]


def conv_block(cin, cout, pool=True):
    layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers)


class ContrastNorm(nn.Module):
    """contrast normalisation of each feature map of each image"""

    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        normed = []
        for fmaps in x:
            chans = [(c - c.mean()) / (c.std() + self.eps) for c in fmaps]
            normed.append(torch.stack(chans))
        return torch.stack(normed)


class GlyphNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.backbone = nn.Sequential(
            conv_block(3, 12, pool=False),
            ContrastNorm(),
            conv_block(12, 24),
            conv_block(24, 48),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(48 * 8 * 8, n_classes))

    def forward(self, x):
        return self.classifier(self.backbone(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    args = ap.parse_args()

    train_ds = GlyphDataset(4096)
    loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True, num_workers=0, drop_last=True)
    model = GlyphNet()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)

    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        correct = total = 0
        for imgs, labels in loader:
            logits = model(imgs)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (logits.argmax(1) == labels).sum().item()
            total += labels.numel()
        print(f"epoch {epoch}: acc {correct / total:.3f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
