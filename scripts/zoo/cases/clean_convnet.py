"""A clean small ResNet: nothing planted, so advisor must raise no high-severity finding.

Three stages in a ModuleDict (``stages.s1``..``stages.s3``), each two basic residual blocks,
downsampling between stages so that every stage costs about the same. CPU only: on a GPU this
convolution-heavy step is rightly reported for cuDNN benchmark mode being off, which the workload
runner leaves at PyTorch's default.
"""

import torch
from torch import nn

from zoo_case import classes, floats, workload


class BasicBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(h)))


class Stage(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.down = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.blocks = nn.Sequential(BasicBlock(cout), BasicBlock(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(self.down(x))


class SmallResNet(nn.Module):
    def __init__(self, count):
        super().__init__()
        self.stages = nn.ModuleDict({"s1": Stage(3, 16, 1), "s2": Stage(16, 32, 2),
                                     "s3": Stage(32, 64, 2)})
        self.fc = nn.Linear(64, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for stage in self.stages.values():
            x = stage(x)
        return self.fc(x.mean((2, 3)))


def build(size):
    if size != "cpu":
        raise ValueError("clean_convnet has a CPU size only")
    return (SmallResNet(10),
            workload([floats(8, 3, 32, 32)], classes(8, 10), description="clean small ResNet"))
