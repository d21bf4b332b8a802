"""A training script whose second block runs out of CUDA memory in its forward at step --oom-step,
as a batch too large for the device does.

On a CPU nothing runs out of CUDA memory, so the block raises the error torch's caching allocator
raises, with its message: the only way to get one without a GPU. torch.cuda.OutOfMemoryError is
the class on every torch from 1.13 (from 2.5 an alias of torch.OutOfMemoryError).

    python oom_train.py [--oom-step N]
"""

import argparse

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, runs_out=None):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.runs_out = runs_out

    def forward(self, x):
        if self.runs_out is not None and self.runs_out():
            raise torch.cuda.OutOfMemoryError(
                "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; "
                "13.90 GiB already allocated; 1.20 GiB free; 14.10 GiB reserved in total by "
                "PyTorch)")
        return torch.relu(self.fc(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--oom-step", type=int, default=6)
    args = parser.parse_args()

    step = 0
    torch.manual_seed(0)
    model = nn.Sequential(Block(32), Block(32, runs_out=lambda: step == args.oom_step),
                          nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs, labels = torch.randn(16, 32), torch.randint(0, 4, (16,))
    for step in range(1000):
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
