"""A training script written the way people write them, for advisor's script-mode tests.

A Dataset and a DataLoader with worker processes, a custom loss, AdamW with an LR scheduler,
gradient accumulation, and nothing that knows about advisor. One module instance is slow on
purpose: the feed-forward of the third of four identical layers (encoder.layers.2.ffn) runs its
matmul several more times, three levels below the model.

    python train_sample.py [--epochs N] [--workers N] [--accumulate N] [--no-slow]
                           [--checkpoint] [--tag TEXT]

--checkpoint recomputes each layer's activations in backward (activation checkpointing); --tag is
ignored (tests find the script's processes by it).
"""

import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint
from torch.utils.data import DataLoader, Dataset


class Tokens(Dataset):
    def __init__(self, size, length, width):
        generator = torch.Generator().manual_seed(0)
        self.inputs = torch.randn(size, length, width, generator=generator)
        self.labels = torch.randint(0, 10, (size,), generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.inputs[index], self.labels[index]


class FeedForward(nn.Module):
    def __init__(self, width, repeats):
        super().__init__()
        self.up = nn.Parameter(torch.randn(width, 2 * width) / width ** 0.5)
        self.down = nn.Parameter(torch.randn(2 * width, width) / width ** 0.5)
        self.repeats = repeats

    def forward(self, x):
        h = x
        for _ in range(self.repeats):
            h = torch.tanh(h @ self.up) @ self.down
        return h


class Layer(nn.Module):
    def __init__(self, width, repeats):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.act = nn.ReLU(inplace=True)  # in place, on the output of the module before it
        self.ffn = FeedForward(width, repeats)

    def forward(self, x):
        x = x + self.act(self.mix(self.norm(x)))
        return x + self.ffn(x)


class Encoder(nn.Module):
    def __init__(self, width, slow, checkpoint):
        super().__init__()
        self.layers = nn.ModuleList(
            [Layer(width, repeats=12 if slow and i == 2 else 1) for i in range(4)])
        self.checkpoint = checkpoint

    def forward(self, x):
        for layer in self.layers:
            if self.checkpoint:
                x = torch.utils.checkpoint.checkpoint(layer, x)
            else:
                x = layer(x)
        return x


class Classifier(nn.Module):
    def __init__(self, width, slow, checkpoint):
        super().__init__()
        self.embed = nn.Linear(width, width)
        self.encoder = Encoder(width, slow, checkpoint)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)).mean(dim=1))


def smoothed_cross_entropy(logits, labels, smoothing=0.1):
    """The custom loss: label smoothing written by hand."""
    log_probs = F.log_softmax(logits, dim=-1)
    nll = -log_probs.gather(1, labels.unsqueeze(1)).squeeze(1)
    return ((1 - smoothing) * nll - smoothing * log_probs.mean(dim=-1)).mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--accumulate", type=int, default=2)
    parser.add_argument("--no-slow", action="store_true")
    parser.add_argument("--checkpoint", action="store_true")
    parser.add_argument("--tag", default="")
    parser.add_argument("--exit-status", type=int, default=0, help="to end with, once trained")
    parser.add_argument("--os-exit", action="store_true", help="end with os._exit: no atexit")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    width = 64
    model = Classifier(width, slow=not args.no_slow, checkpoint=args.checkpoint)
    loader = DataLoader(Tokens(256, 16, width), batch_size=16, shuffle=True,
                        num_workers=args.workers)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.9)

    step = 0
    for epoch in range(args.epochs):
        for i, (inputs, labels) in enumerate(loader):
            loss = smoothed_cross_entropy(model(inputs), labels) / args.accumulate
            loss.backward()
            if (i + 1) % args.accumulate == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
                step += 1
        print("epoch %d: %d steps, loss %.3f" % (epoch, step, loss.item() * args.accumulate),
              flush=True)
    if args.os_exit:
        sys.stdout.flush()
        os._exit(args.exit_status)
    sys.exit(args.exit_status)


if __name__ == "__main__":
    main()
