import os
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Cfg:
    n_users: int = 5000
    n_items: int = 20000
    n_cats: int = 300
    dim: int = 32
    max_hist: int = 40
    batch: int = 512
    n_neg: int = 64
    steps: int = 3000
    lr: float = 1e-3


def make_interactions(cfg, rng):
    """fake implicit feedback: each user has a history of item ids and one held-out positive"""
    hist_len = rng.integers(5, cfg.max_hist + 1, size=cfg.n_users)
    hist = [rng.integers(1, cfg.n_items, size=n) for n in hist_len]
    user_cats = [rng.integers(0, cfg.n_cats, size=rng.integers(1, 6)) for _ in range(cfg.n_users)]
    target = rng.integers(1, cfg.n_items, size=cfg.n_users)
    return hist, user_cats, target


def make_batch(cfg, rng, data):
    hist, user_cats, target = data
    users = rng.integers(0, cfg.n_users, size=cfg.batch)
    lens = torch.tensor([len(hist[u]) for u in users])
    items = torch.from_numpy(np.concatenate([hist[u] for u in users]))
    cats = [torch.from_numpy(user_cats[u]) for u in users]
    cat_offsets = torch.tensor([0] + [len(c) for c in cats[:-1]]).cumsum(0)
    return {
        "user": torch.from_numpy(users),
        "hist_items": items,
        "hist_lens": lens,
        "cats": torch.cat(cats),
        "cat_offsets": cat_offsets,
        "pos": torch.from_numpy(target[users]),
        "neg": torch.randint(1, cfg.n_items, (cfg.n_neg,)),
    }


class HistoryEncoder(nn.Module):
    """mean of the item embeddings in each user's history"""

    def __init__(self, n_items, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_items, dim) * 0.05)

    def forward(self, items, lens):
        vecs = F.embedding(items, self.weight)
        out = []
        for user_vecs in vecs.split(lens.tolist()):
            out.append(user_vecs.mean(0))
        return torch.stack(out)


class UserTower(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.user_emb = nn.Embedding(cfg.n_users, cfg.dim)
        self.cat_bag = nn.EmbeddingBag(cfg.n_cats, cfg.dim, mode="sum")
        self.history = HistoryEncoder(cfg.n_items, cfg.dim)
        self.mlp = nn.Sequential(nn.Linear(3 * cfg.dim, 128), nn.ReLU(), nn.Linear(128, cfg.dim))

    def forward(self, user, cats, cat_offsets, hist_items, hist_lens):
        x = torch.cat([self.user_emb(user), self.cat_bag(cats, cat_offsets),
                       self.history(hist_items, hist_lens)], dim=-1)
        return self.mlp(x)


class ItemTower(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg.n_items, cfg.dim)
        self.mlp = nn.Sequential(nn.Linear(cfg.dim, 64), nn.ReLU(), nn.Linear(64, cfg.dim))

    def forward(self, items):
        return self.mlp(self.emb(items))


class TwoTower(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.users = UserTower(cfg)
        self.items = ItemTower(cfg)

    def forward(self, b):
        u = self.users(b["user"], b["cats"], b["cat_offsets"], b["hist_items"], b["hist_lens"])
        return u, self.items(b["pos"]), self.items(b["neg"])


def sampled_softmax_loss(u, pos, neg, temperature=0.1):
    u, pos, neg = F.normalize(u, dim=-1), F.normalize(pos, dim=-1), F.normalize(neg, dim=-1)
    logits = torch.cat([(u * pos).sum(-1, keepdim=True), u @ neg.T], dim=1) / temperature
    return F.cross_entropy(logits, torch.zeros(len(u), dtype=torch.long))


def recall_at_k(u, pos, neg, k=10):
    with torch.no_grad():
        scores = torch.cat([(u * pos).sum(-1, keepdim=True), u @ neg.T], dim=1)
        return (scores.topk(k, dim=1).indices == 0).any(1).float().mean().item()


if __name__ == "__main__":
    torch.set_num_threads(1)
    cfg = Cfg()
    rng = np.random.default_rng(int(os.environ.get("SEED", 0)))
    data = make_interactions(cfg, rng)
    model = TwoTower(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    for step in range(cfg.steps):
        batch = make_batch(cfg, rng, data)
        u, pos, neg = model(batch)
        loss = sampled_softmax_loss(u, pos, neg)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print(f"{step} loss={loss.item():.4f} recall@10={recall_at_k(u, pos, neg):.3f}")
