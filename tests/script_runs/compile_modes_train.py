"""A stack of three matrix products in a ModuleList, trained; nothing in it knows about advisor.
For the autotest's torch.compile modes: regional compilation compiles each block alone (the
blocks share one graph), and inductor compiles every graph (x @ w, and the gradients) into calls
of the matrix product it already has, with no C++ kernel to build, so that a compile on a CPU
costs seconds.

    python compile_modes_train.py [--steps N]
"""

import argparse

import torch
import torch.nn as nn


class Product(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(16, 16) / 4)

    def forward(self, x):
        return x @ self.weight


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Product() for _ in range(3)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Stack()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(8, 16), torch.randn(8, 16)
    for _ in range(args.steps):
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
