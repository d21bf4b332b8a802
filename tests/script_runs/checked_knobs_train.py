"""A training script for the autotest's numerics check inside the running script. Its model has
dropout and BatchNorm, whose RNG and running statistics the check must leave as they were; its
steps pay a price while deterministic algorithms are on and a smaller one while cuDNN's benchmark
mode is off (two knobs worth switching that keep the numbers, whose combination the autotest
measures too); and it plants a knob that breaks the numbers: with three intra-op threads its
model's output moves by 10 %.

    python checked_knobs_train.py --losses FILE [--steps N] [--cost-ms MS]
                                  [--benchmark-cost-ms MS]

--losses: each run of the script appends a line "run", then each step's loss, one a line.
--cost-ms, --benchmark-cost-ms: each step's price while deterministic algorithms are on, and
while cuDNN's benchmark mode is off.
"""

import argparse
import time

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(),
                                  nn.Dropout(0.3), nn.Linear(64, 10))

    def forward(self, x):
        y = self.body(x)
        return y * 1.1 if torch.get_num_threads() == 3 else y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--losses", required=True)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--cost-ms", type=float, default=10.0)
    parser.add_argument("--benchmark-cost-ms", type=float, default=5.0)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = Model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    inputs, labels = torch.randn(16, 32), torch.randint(0, 10, (16,))
    with open(args.losses, "a", buffering=1) as losses:
        losses.write("run\n")
        for _ in range(args.steps):
            if torch.are_deterministic_algorithms_enabled():
                time.sleep(args.cost_ms / 1000)
            if not torch.backends.cudnn.benchmark:
                time.sleep(args.benchmark_cost_ms / 1000)
            loss = nn.functional.cross_entropy(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.write("%r\n" % loss.item())


if __name__ == "__main__":
    main()
