#!/usr/bin/env python3
"""Records the torch.profiler trace of a training loop in the style of pytorch/examples' MNIST.

    record_mnist_style_trace.py OUT.json.gz

The network, optimizer and loop are that example's (two convolutions, dropout, two linear layers,
Adadelta with StepLR, a DataLoader with 2 workers; random 28x28 data, no torchvision), profiled
on the CPU with record_shapes and with_stack as a user would, plus one record_function range of
the user's own ("train_step_body") around the forward and the loss. With Debian's torch 1.13
(built without Kineto) the trace is in the legacy exporter's format: no categories, no arguments,
and ops that C++ records under bare names ("detach_" inside "aten::detach_", from the DataLoader's
worker results) beside the user's label. tests/data/traces/torch-1.13-cpu/single/mnist_style-stack.json.gz
was recorded by it (/usr/bin/python3, torch 1.13).
"""

import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.lr_scheduler import StepLR
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from record_traces import save_trace  # scripts/ is the script's folder, first on the path


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(self.dropout1(x), 1)
        x = self.dropout2(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    torch.manual_seed(1)
    data = torch.utils.data.TensorDataset(torch.randn(256, 1, 28, 28),
                                          torch.randint(0, 10, (256,)))
    loader = torch.utils.data.DataLoader(data, batch_size=16, num_workers=2)
    model = Net()
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True,
                 schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=lambda prof: save_trace(prof, sys.argv[1])) as prof:
        for step, (inputs, target) in enumerate(loader):
            optimizer.zero_grad()
            with record_function("train_step_body"):
                loss = F.nll_loss(model(inputs), target)
            loss.backward()
            optimizer.step()
            loss.item()
            prof.step()
            if step == 4:
                break
    scheduler.step()


if __name__ == "__main__":
    main()
