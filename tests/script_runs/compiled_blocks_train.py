"""A small transformer-like stack trained with torch.compile, the whole model compiled, whose middle
block mixes its tokens with two batched matrix products over every pair of tokens: that block's
mixer holds most of the step. Nothing in it knows about advisor.

    python compiled_blocks_train.py [--steps N] [--eager]

--eager trains the same model without torch.compile. backend="aot_eager": dynamo's and
AOTAutograd's graphs as inductor's would be, without inductor's C++ compile, which took minutes on
the 2-core CI machine (compiled_item_train.py).
"""

import argparse

import torch
import torch.nn as nn


class TokenMixer(nn.Module):
    def forward(self, x):
        return (x @ x.transpose(1, 2)).softmax(dim=-1) @ x


class Block(nn.Module):
    def __init__(self, width, mixes=False):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc = nn.Linear(width, width)
        self.mixer = TokenMixer() if mixes else None

    def forward(self, x):
        h = torch.relu(self.fc(self.norm(x)))
        if self.mixer is not None:
            h = self.mixer(h)
        return x + h


class Net(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.blocks = nn.Sequential(Block(width), Block(width, mixes=True), Block(width))
        self.head = nn.Linear(width, 4)

    def forward(self, x):
        return self.head(self.blocks(self.embed(x)).mean(dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--eager", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = Net()
    model = net if args.eager else torch.compile(net, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs = torch.randn(32, 256, 8)
    labels = torch.randint(0, 4, (32,))
    for _ in range(args.steps):
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
