"""A compiled MLP trained on a dataset whose size is not a multiple of the batch: every eighth
step's batch is short (drop_last left at its default), so the batch size changes every few steps
and dynamo recompiles the model's forward on the size guard the first batches compiled in.
Nothing in it knows about advisor.

    python short_batch_train.py [--steps N] [--tag TEXT] [--device cuda --backend inductor]

--tag is ignored (tests find the script's processes by it). --device and --backend are for the
GPU check (scripts/gpu-check.sh compile_findings), which runs it as users on a GPU run it.

backend="eager": recompilations are dynamo's, the same with every backend, and inductor's C++
compile took 145 s of wall time (28 s of CPU) for a model of this size on the 2-core CI machine
under load, against 3 s with the eager backend (2026-11-29).
"""

import argparse

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, features=16, width=64, classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(features, width), nn.GELU(), nn.Linear(width, width),
                                  nn.GELU())
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--tag", default="")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--backend", default="eager")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    # 236 rows in batches of 32: seven full batches, then one of 12.
    data = torch.utils.data.TensorDataset(torch.randn(236, 16), torch.randint(0, 4, (236,)))
    loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True)
    model = torch.compile(Classifier().to(args.device), backend=args.backend)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    step = 0
    while step < args.steps:
        for x, y in loader:
            x, y = x.to(args.device), y.to(args.device)
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            if step == args.steps:
                break
    print("trained %d steps, loss %.3f" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
