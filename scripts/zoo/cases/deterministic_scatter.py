"""Graph message passing, deterministic algorithms on, one layer with a 32 times larger fan-out.

Nodes are the batch; each of three ``GraphConv`` layers (plain attributes ``conv1``..``conv3`` of
``gnn``) transforms node features, then sums each node's sampled neighbours from a fixed
neighbour table (a buffer) with ``index_select``. ``gnn.conv2`` samples 32 times as many
neighbours as the others. The backward of index_select (IndexSelectBackward0) accumulates the
gradient with index_add, which deterministic algorithms make take a slower, ordered path on CUDA.
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class Aggregate(nn.Module):
    """Sums the features of each node's ``fanout`` sampled neighbours (a fixed table)."""

    def __init__(self, nodes, fanout):
        super().__init__()
        generator = torch.Generator().manual_seed(fanout)
        self.register_buffer("neighbours",
                             torch.randint(0, nodes, (nodes * fanout,), generator=generator))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        messages = h.index_select(0, self.neighbours)
        return messages.view(h.size(0), -1, h.size(1)).sum(1)


class GraphConv(nn.Module):
    def __init__(self, dim, nodes, fanout):
        super().__init__()
        self.transform = nn.Linear(dim, dim)
        self.aggregate = Aggregate(nodes, fanout)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + torch.relu(self.aggregate(self.transform(h)))


class GNN(nn.Module):
    def __init__(self, dim, nodes, fanout):
        super().__init__()
        self.conv1 = GraphConv(dim, nodes, fanout)
        self.conv2 = GraphConv(dim, nodes, 32 * fanout)
        self.conv3 = GraphConv(dim, nodes, fanout)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.conv3(self.conv2(self.conv1(h)))


class NodeClassifier(nn.Module):
    def __init__(self, features, dim, nodes, fanout, count):
        super().__init__()
        self.encode = nn.Linear(features, dim)
        self.gnn = GNN(dim, nodes, fanout)
        self.classify = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classify(self.gnn(self.encode(x)))


def build(size):
    nodes, dim, fanout = pick(size, (2048, 32, 2), (65536, 128, 2))
    return (NodeClassifier(16, dim, nodes, fanout, 10),
            workload([floats(nodes, 16)], classes(nodes, 10), deterministic=True,
                     description=f"{nodes}-node graph; gnn.conv2 sums {32 * fanout} neighbours "
                                 f"per node, the others {fanout}; deterministic algorithms"))
