"""A training script whose steps pay for deterministic algorithms, as a GPU's deterministic scatter
and index kernels do (they sort where the default ones add atomically). A CPU has no slower
deterministic kernels of note, so the price is paid where the script's loop reads the setting,
before each step; advisor's autotest switches the setting between steps inside one run.

    python deterministic_train.py [--deterministic] [--steps N] [--cost-ms MS] [--step-ms MS]

--deterministic: the script asks for deterministic algorithms itself. --cost-ms: each step's
price while they are on. --step-ms: the rest of the step, slept, so that the price is a known
share of it (the autotest's controls: 1 ms against 20 is a 5 % slowdown).
"""

import argparse
import time

import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--deterministic", action="store_true")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--cost-ms", type=float, default=20.0)
    parser.add_argument("--step-ms", type=float, default=0.0)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.use_deterministic_algorithms(args.deterministic)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs, labels = torch.randn(32, 64), torch.randint(0, 10, (32,))
    for _ in range(args.steps):
        pause = args.step_ms + (args.cost_ms if torch.are_deterministic_algorithms_enabled() else 0)
        time.sleep(pause / 1000)
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
