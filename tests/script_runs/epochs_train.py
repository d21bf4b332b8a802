"""Short epochs and DataLoader workers that are slow to start, as a training script written the way
people write them, for advisor's script-mode tests (issue #14): nothing here knows about advisor.

Each worker connects to the data's storage as it starts (its worker_init_fn waits 0.3 s, as
opening a remote store or reading an index does), and an epoch is 6 batches: without
persistent_workers, every epoch starts both workers again and its first batch waits for them.

    python epochs_train.py [--workers N] [--persistent] [--epochs N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Readings(Dataset):
    def __init__(self, size, width):
        generator = torch.Generator().manual_seed(0)
        self.inputs = torch.randn(size, width, generator=generator)
        self.targets = self.inputs.pow(2).sum(dim=1, keepdim=True)

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, index):
        return self.inputs[index], self.targets[index]


def connect_to_storage(worker_id):
    time.sleep(0.3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--persistent", action="store_true")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    width = 128
    model = nn.Sequential(nn.Linear(width, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 1))
    loader = DataLoader(Readings(6 * 32, width), batch_size=32, shuffle=True,
                        num_workers=args.workers, worker_init_fn=connect_to_storage,
                        persistent_workers=args.persistent)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
        print("epoch %d: loss %.3f" % (epoch, loss.item()), flush=True)


if __name__ == "__main__":
    main()
