"""A training script whose hot spot is a deterministic gather's backward (a token selection, as
timm's PatchDropout writes it): advisor's gather-to-index fix needs a change to this file, which
the autotest shows against the line.

    python gather_train.py [--steps N]
"""

import argparse

import torch
import torch.nn as nn


class TokenSelect(nn.Module):
    def __init__(self, keep):
        super().__init__()
        self.keep = keep

    def forward(self, x):
        keep_indices = torch.argsort(torch.randn(x.shape[0], x.shape[1]), dim=-1)[:, :self.keep]
        x = torch.gather(x, dim=1, index=keep_indices.unsqueeze(-1).expand(-1, -1, x.shape[-1]))
        return x


class Scale(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return x * self.weight


class Model(nn.Module):
    # Few wide tokens: the gather and its backward, not the argsort over the tokens, hold the
    # selection's time, so the hot op is the same in every run.
    def __init__(self, width):
        super().__init__()
        self.embed = Scale(width)
        self.select = TokenSelect(keep=112)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        return self.head(self.select(self.embed(x)).mean(dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = Model(128)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs = torch.randn(32, 128, 128)
    labels = torch.randint(0, 10, (32,))
    for _ in range(args.steps):
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
