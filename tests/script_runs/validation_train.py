"""A training script that validates after every optimizer step, for advisor's script-mode tests:
the validation's calls of the model, under torch.no_grad(), are no step's forward
(docs/script-mode.md, "Steps"). Each validation runs eight batches of 512 rows through the model
that trains on 64 rows a step.

    python validation_train.py [--steps N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    train = [(torch.randn(64, 256), torch.randint(0, 10, (64,))) for _ in range(4)]
    validation = [torch.randn(512, 256) for _ in range(8)]
    for step in range(args.steps):
        inputs, labels = train[step % len(train)]
        loss = F.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            for batch in validation:
                model(batch)
        model.train()


if __name__ == "__main__":
    main()
