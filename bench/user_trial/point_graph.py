"""
Point-cloud part segmentation with a small message-passing network.
Graphs (kNN over each cloud) are built once in the dataset; a batch concatenates clouds.
Gradient accumulation over 2 micro-batches (memory budget on the real data).
"""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


def knn_edges(pos, k):
    d = torch.cdist(pos, pos)
    nbr = d.topk(k + 1, largest=False).indices[:, 1:]
    src = nbr.reshape(-1)
    dst = torch.arange(pos.size(0)).repeat_interleave(k)
    return torch.stack([src, dst])


class ToyParts(Dataset):
    def __init__(self, n_clouds=256, n_points=256, k=6, n_parts=4, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for _ in range(n_clouds):
            pos = torch.rand(n_points, 3, generator=g) * 2 - 1
            label = (pos[:, 0] > 0).long() * 2 + (pos[:, 2] > 0).long()
            feat = torch.cat([pos, pos.norm(dim=1, keepdim=True)], 1)
            self.items.append((pos, feat, knn_edges(pos, k), label % n_parts))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate_graphs(items):
    pos, feat, edges, labels, offset = [], [], [], [], 0
    for p, f, e, y in items:
        pos.append(p); feat.append(f); labels.append(y)
        edges.append(e + offset)
        offset += p.size(0)
    return torch.cat(pos), torch.cat(feat), torch.cat(edges, 1), torch.cat(labels)


class RBF(nn.Module):
    def __init__(self, n=16, cutoff=1.0):
        super().__init__()
        self.register_buffer("centers", torch.linspace(0, cutoff, n))
        self.gamma = (n / cutoff) ** 2

    def forward(self, d):
        return torch.exp(-self.gamma * (d[:, None] - self.centers) ** 2)


class EdgeGeometry(nn.Module):
    """edge features from the geometry: length (RBF-expanded) and unit direction"""

    def __init__(self):
        super().__init__()
        self.rbf = RBF()

    def forward(self, pos, edge_index):
        src, dst = edge_index
        dist = (pos[:, None, :] - pos[None, :, :]).norm(dim=-1)
        length = dist[src, dst]
        direction = (pos[src] - pos[dst]) / (length[:, None] + 1e-9)
        return torch.cat([self.rbf(length), direction], dim=1)


class MessageLayer(nn.Module):
    def __init__(self, dim, edge_dim):
        super().__init__()
        self.msg = nn.Sequential(nn.Linear(2 * dim + edge_dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.upd = nn.Sequential(nn.Linear(2 * dim, dim), nn.SiLU())
        self.norm = nn.LayerNorm(dim)

    def forward(self, h, edge_index, e):
        src, dst = edge_index
        m = self.msg(torch.cat([h[src], h[dst], e], dim=1))
        agg = torch.zeros_like(h).index_add_(0, dst, m)
        deg = torch.zeros(h.size(0), 1).index_add_(0, dst, torch.ones(dst.size(0), 1)).clamp_min(1)
        return self.norm(h + self.upd(torch.cat([h, agg / deg], dim=1)))


class PartSegNet(nn.Module):
    def __init__(self, in_dim=4, dim=32, layers=3, n_parts=4):
        super().__init__()
        self.embed = nn.Linear(in_dim, dim)
        self.geometry = EdgeGeometry()
        self.layers = nn.ModuleList(MessageLayer(dim, 16 + 3) for _ in range(layers))
        self.out = nn.Linear(dim, n_parts)

    def forward(self, pos, feat, edge_index):
        e = self.geometry(pos, edge_index)
        h = self.embed(feat)
        for layer in self.layers:
            h = layer(h, edge_index, e)
        return self.out(h)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--clouds-per-batch", type=int, default=6)
    p.add_argument("--accum", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(1)

    loader = DataLoader(ToyParts(), batch_size=args.clouds_per_batch, shuffle=True, collate_fn=collate_graphs)
    net = PartSegNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        running = 0.0
        for i, (pos, feat, edges, labels) in enumerate(loader):
            loss = lossf(net(pos, feat, edges), labels) / args.accum
            loss.backward()
            running += loss.item()
            if (i + 1) % args.accum == 0:
                opt.step()
                opt.zero_grad()
        print(f"epoch {epoch} loss {running / len(loader) * args.accum:.4f}")


if __name__ == "__main__":
    main()
