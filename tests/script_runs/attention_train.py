"""A training script with hand-written attention in every block and one slow feed-forward layer:
the hot spot is the slow layer, and the materialised-attention finding is about another module,
so its line is read from the running script after the bisection.

    python attention_train.py [--steps N]
"""

import argparse

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.scale = width ** -0.5

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = (q @ k.transpose(-2, -1)) * self.scale
        return scores.softmax(dim=-1) @ v  # SOFTMAX_LINE


class FeedForward(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


class Block(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.attn = Attention(width)
        self.ffn = FeedForward(width, hidden)

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.ffn(x)


class Model(nn.Module):
    def __init__(self, width=64, tokens=96):
        super().__init__()
        # blocks.1's feed-forward layer is 12 times as wide as the others': the hot spot.
        self.blocks = nn.ModuleList([Block(width, 12 * 4 * width if i == 1 else 4 * width)
                                     for i in range(2)])
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs = torch.randn(16, 96, 64)
    labels = torch.randint(0, 10, (16,))
    for _ in range(args.steps):
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
