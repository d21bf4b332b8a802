"""A training script that keeps PYTHONPATH's entries out of its imports and spawns its
DataLoader's workers, for advisor's script-mode tests (issue #34, L13): nothing here knows about
advisor.

Some scripts rebuild sys.path so that only their own folder and the installed packages are
imported, whatever the environment adds (advisor's probe is on PYTHONPATH). A spawned worker
starts from its parent's sys.path and runs the script's top level again, so it drops them too.
The second of three blocks is slow on purpose: it runs its matmul several more times.

    python spawn_train.py [--start-method] [--clear-environment] [--epochs N] [--tag TEXT]

The workers are spawned through the DataLoader's multiprocessing_context, or with --start-method
through multiprocessing's start method for the whole script. --clear-environment also takes
PYTHONPATH out of the environment the workers inherit. --tag is ignored (tests find the script's
processes by it).
"""

import os
import sys

_FROM_ENVIRONMENT = {os.path.abspath(entry)
                     for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry}
sys.path = [entry for entry in sys.path if os.path.abspath(entry or ".") not in _FROM_ENVIRONMENT]
if "--clear-environment" in sys.argv:
    os.environ.pop("PYTHONPATH", None)

# Everything else is imported from the sys.path settled above.
import argparse

import torch
import torch.multiprocessing
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Points(Dataset):
    def __init__(self, size, width):
        generator = torch.Generator().manual_seed(0)
        self.inputs = torch.randn(size, width, generator=generator)
        self.targets = torch.randn(size, width, generator=generator)

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, index):
        return self.inputs[index], self.targets[index]


class Block(nn.Module):
    def __init__(self, width, repeats):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(width, width) / width ** 0.5)
        self.repeats = repeats

    def forward(self, x):
        for _ in range(self.repeats):
            x = torch.tanh(x @ self.weight)
        return x


class Model(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(width, 16 if i == 1 else 1) for i in range(3)])

    def forward(self, x):
        return self.blocks(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--start-method", action="store_true")
    parser.add_argument("--clear-environment", action="store_true")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()

    if args.start_method:
        torch.multiprocessing.set_start_method("spawn")
    torch.manual_seed(0)
    torch.set_num_threads(1)
    width = 64
    model = Model(width)
    loader = DataLoader(Points(2048, width), batch_size=32, shuffle=True, num_workers=2,
                        persistent_workers=True,
                        multiprocessing_context=None if args.start_method else "spawn")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            loss = ((model(inputs) - targets) ** 2).mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print("epoch %d: loss %.3f" % (epoch, loss.item()), flush=True)


if __name__ == "__main__":
    main()
