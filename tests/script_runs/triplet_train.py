"""Metric learning with a batch-hard triplet loss, written as people write it, for advisor's
script-mode tests: a small embedding network, a Trainer-like class, and the loss as a plain
function that loops over the anchors of each batch, outside the model. By hand the loop costs
most of the step (docs/benchmarks.md, "Costs of the script's own code").

    python triplet_train.py [--epochs N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class EmbeddingNet(nn.Module):
    def __init__(self, features=64, width=128, dim=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(features, width), nn.ReLU(),
                                      nn.Linear(width, width), nn.ReLU())
        self.head = nn.Linear(width, dim)

    def forward(self, x):
        return F.normalize(self.head(self.backbone(x)), dim=1)


def batch_hard_triplet_loss(embeddings, labels, margin=0.3):
    dist = torch.cdist(embeddings, embeddings)
    losses = []
    for i in range(len(labels)):
        hardest_positive = dist[i][labels == labels[i]].max()
        hardest_negative = dist[i][labels != labels[i]].min()
        losses.append(F.relu(hardest_positive - hardest_negative + margin))
    return torch.stack(losses).mean()


class Trainer:
    def __init__(self, model, loader, lr=1e-3, log_every=100):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.log_every = log_every
        self.global_step = 0

    def training_step(self, batch):
        inputs, labels = batch
        embeddings = self.model(inputs)
        return batch_hard_triplet_loss(embeddings, labels)

    def fit(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                self.optimizer.zero_grad()
                loss = self.training_step(batch)
                loss.backward()
                self.optimizer.step()
                self.global_step += 1
                if self.global_step % self.log_every == 0:
                    print(f"epoch {epoch} step {self.global_step}: loss {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    # Its matmuls are small: one thread, and none waits for the other core.
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    inputs = torch.randn(2048, 64)
    labels = torch.randint(0, 8, (2048,))
    loader = DataLoader(TensorDataset(inputs, labels), batch_size=128, shuffle=True)
    Trainer(EmbeddingNet(), loader).fit(args.epochs)


if __name__ == "__main__":
    main()
