"""A two-tower scorer written as people write them, for advisor's script-mode tests: a context
tower over float features and an item tower whose embedding is fed integer ids, then a wide
projection that holds most of the step. An embedding fed ids gets no "backward end" mark (its input
needs no gradient), and the context tower, called first, runs its backward right after it: inside
the item tower, where the context tower is not instrumented, the embedding's backward took the
context tower's and was named the hot spot (issue #33, recsys_train).

    python two_towers_train.py [--steps N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ItemTower(nn.Module):
    def __init__(self, n_items, dim, hidden):
        super().__init__()
        self.emb = nn.Embedding(n_items, dim)
        self.proj = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, ids):
        return self.proj(self.emb(ids))


class TwoTowers(nn.Module):
    def __init__(self, features=64, n_items=1000, dim=64, hidden=4096):
        super().__init__()
        self.context = nn.Sequential(nn.Linear(features, 512), nn.ReLU(), nn.Linear(512, dim))
        self.items = ItemTower(n_items, dim, hidden)

    def forward(self, features, ids):
        return (self.context(features) * self.items(ids)).sum(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = TwoTowers()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    for step in range(args.steps):
        features = torch.randn(256, 64)
        ids = torch.randint(0, 1000, (256,))
        loss = F.mse_loss(model(features, ids), torch.randn(256))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
