"""A small residual MLP trained with torch.compile, as its users write one: one block keeps the
peak of its activations for the training log with `.item()` inside its forward, which dynamo
cannot trace, so the compiled graph breaks at that line every step. Nothing in it knows about
advisor.

    python compiled_item_train.py [--steps N] [--tag TEXT] [--device cuda --backend inductor]

--tag is ignored (tests find the script's processes by it). --device and --backend are for the
GPU check (scripts/gpu-check.sh compile_findings), which runs it as users on a GPU run it.

backend="eager": graph breaks and recompilations are dynamo's, the same with every backend, and
inductor's C++ compile of even this model took 145 s of wall time (28 s of CPU) on the 2-core CI
machine under load, against 3 s with the eager backend (2026-11-29).
"""

import argparse

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, log_peak=False):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc = nn.Linear(width, width)
        self.log_peak = log_peak
        self.peak = 0.0

    def forward(self, x):
        h = torch.relu(self.fc(self.norm(x)))
        if self.log_peak:
            self.peak = h.detach().abs().max().item()  # for the training log
        return x + h


class Net(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(16, width)
        self.blocks = nn.Sequential(Block(width), Block(width, log_peak=True), Block(width))
        self.head = nn.Linear(width, 4)

    def forward(self, x):
        return self.head(self.blocks(self.embed(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--tag", default="")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--backend", default="eager")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = torch.utils.data.TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True, drop_last=True)
    net = Net().to(args.device)
    model = torch.compile(net, backend=args.backend)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
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
    print("trained %d steps, peak %.2f" % (step, net.blocks[1].peak), flush=True)


if __name__ == "__main__":
    main()
