"""A training script that hangs after two steps (a dead lock in its data pipeline, say)."""
import time

import torch

model = torch.nn.Linear(8, 8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10_000):
    if step == 2:
        time.sleep(3600)
    model(torch.randn(4, 8)).sum().backward()
    optimizer.step()
    optimizer.zero_grad()
