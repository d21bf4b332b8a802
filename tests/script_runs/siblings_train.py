"""A residual MLP regressor written as people write them, for advisor's script-mode tests: a config
dict, twelve identical blocks in a ModuleList and a plain training loop. One block was given a
second, gated pass through its feed-forward (a "refine" flag, and the gate its one extra
parameter), about twice a sibling's cost (docs/benchmarks.md). The extra parameter kept it from
being compared with its siblings before (issue #33, item 4); compared, it is named for that.
Batches of 256 rows: with 32, a block took about 2 ms, and on the busy 2-core VM one step read
the blocks at 0.2 to 2.9 times their median; with 256 the refining block stood out in 4 or 5
steps of 5 there.

    python siblings_train.py [--epochs N] [--threads N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "features": 32,
    "width": 256,
    "hidden": 1024,
    "depth": 12,
    "refine_block": 2,
    "batch_size": 256,
    "lr": 3e-4,
}


class Block(nn.Module):
    def __init__(self, width, hidden, refine=False):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)
        self.gate = nn.Parameter(torch.full((width,), 0.1)) if refine else None

    def forward(self, x):
        h = self.fc2(F.gelu(self.fc1(self.norm(x))))
        if self.gate is not None:
            h = h + self.gate * self.fc2(F.gelu(self.fc1(h)))
        return x + h


class Regressor(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Linear(config["features"], config["width"])
        self.blocks = nn.ModuleList([
            Block(config["width"], config["hidden"], refine=i == config["refine_block"])
            for i in range(config["depth"])
        ])
        self.head = nn.Linear(config["width"], 1)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=50)
    # Its matmuls are small: one thread, and none waits for the other core.
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    inputs = torch.randn(4096, CONFIG["features"])
    targets = inputs[:, :4].sum(dim=1) + 0.1 * torch.randn(4096)
    loader = DataLoader(TensorDataset(inputs, targets), batch_size=CONFIG["batch_size"],
                        shuffle=True)
    model = Regressor(CONFIG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CONFIG["lr"])

    for epoch in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
