"""A classifier written as a LightningModule is, trained without Lightning (issue #26's user trial):
its training_step calls its children, `self.head(self.encoder(x))`, and nothing ever calls the
module itself, which has no forward; a hand loop steps Adam. encoder.2, the wide layer, holds most
of the step. advisor sees encoder and head called outermost and names them through the module that
holds them, as the code spells them.

    python training_step_train.py [--steps N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, features=64, wide=1024, classes=10):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(features, 128), nn.ReLU(), nn.Linear(128, wide),
                                     nn.ReLU())
        self.head = nn.Linear(wide, classes)
        self.loss = nn.CrossEntropyLoss()

    def training_step(self, batch):
        inputs, labels = batch
        return self.loss(self.head(self.encoder(inputs)), labels)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    classifier = Classifier()
    optimizer = classifier.configure_optimizers()
    for step in range(args.steps):
        batch = torch.randn(64, 64), torch.randint(0, 10, (64,))
        loss = classifier.training_step(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
