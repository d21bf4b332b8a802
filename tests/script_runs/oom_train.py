"""A training script whose second block runs out of CUDA memory in its forward (with --in-backward,
in its backward) at step --oom-step, as a batch too large for the device does; with --limit-bytes
N, in its forward of every step where it keeps more than N bytes for backward, as a device with N
bytes free would: the fixes that keep less in it (activation checkpointing: nothing) make it fit.

On a CPU nothing runs out of CUDA memory, so the block raises the error torch's caching allocator
raises, with its message: the only way to get one without a GPU. torch.cuda.OutOfMemoryError is
the class on every torch from 1.13 (from 2.5 an alias of torch.OutOfMemoryError).

    python oom_train.py [--oom-step N] [--in-backward] [--limit-bytes N]
"""

import argparse

import torch
import torch.nn as nn

MESSAGE = ("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; "
           "13.90 GiB already allocated; 1.20 GiB free; 14.10 GiB reserved in total by PyTorch)")


class KeptForBackward:
    """The bytes the step's forward keeps for backward, counted as autograd saves them. Hooks
    entered inside these take their place (torch.utils.checkpoint's): what a checkpointed block
    would keep, it does not, and it is not counted."""

    def __init__(self):
        self.bytes = 0

    def pack(self, tensor):
        self.bytes += tensor.numel() * tensor.element_size()
        return tensor

    @staticmethod
    def unpack(tensor):
        return tensor


KEPT = KeptForBackward()


class Block(nn.Module):
    def __init__(self, width, runs_out=None, in_backward=False):
        """runs_out(kept): whether the block runs out, given the bytes its forward kept."""
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.runs_out = runs_out
        self.in_backward = in_backward

    def forward(self, x):
        if self.in_backward and self.runs_out(0):
            return ReluRunningOut.apply(self.fc(x))
        kept = KEPT.bytes
        out = torch.relu(self.fc(x))
        if self.runs_out is not None and not self.in_backward and self.runs_out(KEPT.bytes - kept):
            raise torch.cuda.OutOfMemoryError(MESSAGE)
        return out


class ReluRunningOut(torch.autograd.Function):
    """relu, whose backward runs out of memory: as a backward op's allocation fails in the autograd
    engine, with its saved input still held."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.relu(x)

    @staticmethod
    def backward(ctx, grad):
        raise torch.cuda.OutOfMemoryError(MESSAGE)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--oom-step", type=int, default=6)
    parser.add_argument("--in-backward", action="store_true")
    parser.add_argument("--limit-bytes", type=int)
    args = parser.parse_args()

    step = 0
    if args.limit_bytes is None:
        runs_out = lambda kept: step == args.oom_step
    else:
        runs_out = lambda kept: kept > args.limit_bytes
    torch.manual_seed(0)
    model = nn.Sequential(Block(32), Block(32, runs_out, args.in_backward), nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs, labels = torch.randn(16, 32), torch.randint(0, 4, (16,))
    for step in range(1000):
        with torch.autograd.graph.saved_tensors_hooks(KEPT.pack, KEPT.unpack):
            loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
