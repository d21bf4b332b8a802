"""A host-device sync from a data-dependent op inside a nested module's forward.

Four encoder layers in a ModuleList; layer 2's feed-forward is a token router
(``encoder.layers.2.ffn.router``) that scores every token through a wide projection of its own,
then picks the tokens scoring above the mean with ``torch.nonzero``: the number of picked tokens
decides the next tensor's shape, so on a GPU the host must wait for the scores (a sync) before it
can go on. The picked tokens go through a small expert, scaled by their score (which trains the
projection), and are added back with ``index_add``. The other layers' feed-forward is a plain MLP.
"""

import torch
from torch import nn

from zoo_case import classes, floats, pick, workload


class Router(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.score_weight = nn.Parameter(torch.randn(dim, hidden) * dim ** -0.5)
        self.expert = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = torch.relu(x @ self.score_weight).mean(-1)
        picked = torch.nonzero(scores > scores.mean()).squeeze(1)
        gate = scores.index_select(0, picked).unsqueeze(1)
        routed = self.expert(x.index_select(0, picked)) * gate
        return x.index_add(0, picked, routed)


class RoutedFFN(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.router = Router(dim, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, dim = x.shape
        return self.router(x.reshape(batch * tokens, dim)).view(batch, tokens, dim)


class DenseFFN(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 2 * dim)
        self.down = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.relu(self.up(x)))


class Layer(nn.Module):
    def __init__(self, ffn, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ffn = ffn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.ffn(self.norm(x))


class Encoder(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.layers = nn.ModuleList([
            Layer(RoutedFFN(dim, hidden) if i == 2 else DenseFFN(dim), dim) for i in range(4)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


class RoutedNet(nn.Module):
    def __init__(self, features, dim, hidden, count):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.encoder = Encoder(dim, hidden)
        self.classify = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classify(self.encoder(self.embed(x)).mean(1))


def build(size):
    batch, tokens, dim, hidden = pick(size, (8, 64, 64, 2048), (64, 256, 512, 16384))
    return (RoutedNet(32, dim, hidden, 10),
            workload([floats(batch, tokens, 32)], classes(batch, 10),
                     description=f"encoder.layers.2.ffn.router scores tokens through a "
                                 f"{dim}x{hidden} projection, then torch.nonzero picks tokens"))
