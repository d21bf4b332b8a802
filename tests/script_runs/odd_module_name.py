"""A model with a submodule whose name advisor cannot show: a control character or a lone
surrogate, as the first argument says ("control" or "surrogate")."""
import sys

import torch

NAMES = {"control": "block\x01", "surrogate": "block\ud800"}

model = torch.nn.Sequential()
model.add_module(NAMES[sys.argv[1]], torch.nn.Linear(8, 8))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(200):
    optimizer.zero_grad()
    model(torch.randn(4, 8)).sum().backward()
    optimizer.step()
