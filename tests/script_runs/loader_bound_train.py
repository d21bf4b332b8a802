"""A training script fed by a DataLoader whose workers keep up with its steps only while they are
slow, for advisor's in-process A/B (docs/recipes.md, "Measured inside the running script"): a
candidate faster than the loader is served from the batches queued during the baseline's slower
steps until that queue drains, and waits for the workers after it, as a long run of it would.

    python loader_bound_train.py [--deterministic] [--steps N] [--batch-ms 80] [--step-ms 20]
                                 [--cost-ms 80] [--workers 2] [--prefetch 2]

Each batch takes a worker --batch-ms (its items' __getitem__ sleep): 2 workers supply a batch per
40 ms, and keep --workers x --prefetch batches requested ahead. A step is --step-ms, plus --cost-ms
while deterministic algorithms are on, the knob the autotest switches between steps (read where
the loop pays for it, after the model's forward, where the probe has switched it for the step).
With --deterministic the step is 100 ms and the loader's queue stays full; deterministic-off's
step is 20 ms, so a long run of it waits for the loader: 40 ms a step, 2.5x the baseline's
throughput, where steps served from the full queue alone would say 5x.
"""

import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

BATCH = 4


class SlowItems(Dataset):
    """Items that each take a worker batch_ms / BATCH to make."""

    def __init__(self, batch_ms):
        self.item_s = batch_ms / BATCH / 1000

    def __len__(self):
        return 1_000_000

    def __getitem__(self, index):
        time.sleep(self.item_s)
        return torch.full((64,), float(index % 7)), index % 10


def batches(loader):
    while True:
        yield from loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--deterministic", action="store_true")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch-ms", type=float, default=80.0)
    parser.add_argument("--step-ms", type=float, default=20.0)
    parser.add_argument("--cost-ms", type=float, default=80.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--prefetch", type=int, default=2)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.use_deterministic_algorithms(args.deterministic)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(SlowItems(args.batch_ms), batch_size=BATCH, num_workers=args.workers,
                        prefetch_factor=args.prefetch, persistent_workers=True)
    feed = batches(loader)
    for _ in range(args.steps):
        inputs, labels = next(feed)
        output = model(inputs)
        # After the forward, where the probe switches the knob for the step that forward begins.
        pause = args.step_ms + (args.cost_ms if torch.are_deterministic_algorithms_enabled() else 0)
        time.sleep(pause / 1000)
        loss = nn.functional.cross_entropy(output, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
