"""A data-parallel training script written the way people write one, for advisor's tests of
several ranks under a launcher:

    python -m torch.distributed.run --standalone --nproc_per_node 2 ddp_train.py [--slow-rank R]

The gloo backend (nccl with --device cuda, each rank on its LOCAL_RANK's GPU),
DistributedDataParallel, a DataLoader with a DistributedSampler, and a small model of four
identical blocks; nothing that knows about advisor. --slow-rank R plants a straggler, so that
every other rank waits for R at each step's gradient all-reduce; --slow-how says where:
`compute` (the default): the forward of blocks.2 runs --slow-work N extra matrix multiplies it
throws away (16 by default; on a GPU the host only queues them, and --width sets their size);
`sleep`: the forward of blocks.2 sleeps N ms on the host; `data`: the rank's DataLoader takes N ms
more per batch (its collate function sleeps). --crash-rank R and --hang-rank R make rank R fail, or stop making
progress, at step 8 (advisor's tests of how a job ends). --accumulate K makes each optimizer step
K micro-batches, each backward synchronising its gradients (no no_sync(), as scripts often are).
--tag is ignored (tests find the job's processes by it).
"""

import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset, default_collate


class SlowCollate:
    """The slow rank's batches take `ms` more to make (its input pipeline is the straggler)."""

    def __init__(self, ms):
        self.ms = ms

    def __call__(self, items):
        time.sleep(self.ms / 1000)
        return default_collate(items)


class Block(nn.Module):
    def __init__(self, width, extra, sleep_ms):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)
        self.extra = extra
        self.sleep_ms = sleep_ms

    def forward(self, x):
        h = self.fc2(torch.relu(self.fc1(x)))
        with torch.no_grad():
            for _ in range(self.extra):  # the planted work, on the slow rank only
                torch.mm(self.fc1.weight, self.fc2.weight)
        if self.sleep_ms:
            time.sleep(self.sleep_ms / 1000)
        return x + h


class Net(nn.Module):
    def __init__(self, width, extra_in_block2=0, sleep_ms_in_block2=0):
        super().__init__()
        self.blocks = nn.ModuleList(
            Block(width, extra_in_block2 if i == 2 else 0, sleep_ms_in_block2 if i == 2 else 0)
            for i in range(4))
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--slow-rank", type=int, default=-1)
    parser.add_argument("--slow-work", type=int, default=16)  # multiplies, or ms
    parser.add_argument("--slow-how", choices=("compute", "sleep", "data"), default="compute")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--width", type=int, default=384)
    parser.add_argument("--crash-rank", type=int, default=-1)
    parser.add_argument("--hang-rank", type=int, default=-1)
    parser.add_argument("--leave-rank", type=int, default=-1)
    parser.add_argument("--accumulate", type=int, default=1)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()

    cuda = args.device == "cuda"
    dist.init_process_group("nccl" if cuda else "gloo")
    rank = dist.get_rank()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if cuda else None
    torch.manual_seed(0)
    width = args.width
    generator = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(512, width, generator=generator),
                         torch.randint(0, 10, (512,), generator=generator))
    sampler = DistributedSampler(data, shuffle=True, seed=0)
    slow = rank == args.slow_rank
    collate = SlowCollate(args.slow_work) if slow and args.slow_how == "data" else None
    loader = DataLoader(data, batch_size=64, sampler=sampler, collate_fn=collate)
    net = Net(width, args.slow_work if slow and args.slow_how == "compute" else 0,
              args.slow_work if slow and args.slow_how == "sleep" else 0)
    model = DistributedDataParallel(net.to(device) if cuda else net,
                                    device_ids=[device] if cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = 0.0
        for inputs, labels in loader:
            if step == 8 and rank == args.crash_rank:
                raise RuntimeError("rank %d failed on purpose" % rank)
            if step == 8 and rank == args.hang_rank:
                time.sleep(3600)
            if step == 8 and rank == args.leave_rank:
                return  # ends cleanly while the other rank trains on
            optimizer.zero_grad()
            if cuda:
                inputs, labels = inputs.to(device), labels.to(device)
            for micro_inputs, micro_labels in zip(inputs.chunk(args.accumulate),
                                                  labels.chunk(args.accumulate)):
                loss = F.cross_entropy(model(micro_inputs), micro_labels) / args.accumulate
                loss.backward()
            optimizer.step()
            total += loss.item()
            step += 1
        if rank == 0:
            print("epoch %d: loss %.4f" % (epoch, total / len(loader)), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
