"""A small MLP of three identical blocks for advisor's script-mode memory test: each block's
`mlp` has an `up` and a `down` projection, and one `up` (blocks.1.mlp.up, three levels down among
its identical siblings) widens its output 16-fold through a GELU before averaging it back: the
wide tensors are kept for the backward, 1 MiB a step (2 MiB on torch 1.13) where a sibling's
keep at most 64 KiB.
With --keep-outputs the loop also keeps every step's predictions, scored against 4096 candidates,
in a list for a metric at the end, without .detach(): 1 MiB more held after every step.

    python memory_holder_train.py [--steps N] [--keep-outputs] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, WIDTH, WIDEN = 64, 256, 16


class Up(nn.Module):
    def __init__(self, widen):
        super().__init__()
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.widen = widen

    def forward(self, x):
        h = self.proj(x)
        if self.widen > 1:
            h = F.gelu(h.repeat(1, self.widen)).view(x.shape[0], self.widen, WIDTH).mean(1)
        return h


class Mlp(nn.Module):
    def __init__(self, widen):
        super().__init__()
        self.up = Up(widen)
        self.down = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        return self.down(F.relu(self.up(x)))


class Block(nn.Module):
    def __init__(self, widen):
        super().__init__()
        self.mlp = Mlp(widen)

    def forward(self, x):
        return x + self.mlp(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(WIDEN if i == 1 else 1) for i in range(3)])
        self.head = nn.Linear(WIDTH, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--keep-outputs", action="store_true")
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = Model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    predictions = []
    for step in range(args.steps):
        x = torch.randn(BATCH, WIDTH)
        y = torch.randn(BATCH)
        optimizer.zero_grad()
        prediction = model(x)
        loss = F.mse_loss(prediction, y)
        if args.keep_outputs:
            predictions.append(prediction.unsqueeze(1) * torch.ones(4096))
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}, {len(predictions)} predictions kept")


if __name__ == "__main__":
    main()
