"""A point-set classifier written as people write it, for advisor's script-mode tests: a per-point
encoder, a layer that weights each point's neighbours by their distance, computed by broadcasting
every pair of points into a [batch, points, points, 16] temporary and summing it, and a head.

    python neighbours_train.py [--steps N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn


class NeighbourMixing(nn.Module):
    def __init__(self, dim, key_dim=16):
        super().__init__()
        self.key = nn.Linear(dim, key_dim)

    def forward(self, h):
        z = self.key(h)
        dist = (z[:, :, None, :] - z[:, None, :, :]).pow(2).sum(-1)
        return torch.softmax(-dist, dim=-1) @ h


class PointClassifier(nn.Module):
    def __init__(self, dim=32, classes=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(3, dim), nn.GELU(), nn.Linear(dim, dim))
        self.neighbours = NeighbourMixing(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, points):
        return self.head(self.neighbours(self.encoder(points)).mean(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = PointClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(args.steps):
        points = torch.randn(16, 64, 3)
        labels = (points[:, :, 0].mean(1) > 0).long()
        loss = nn.functional.cross_entropy(model(points), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 200 == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
