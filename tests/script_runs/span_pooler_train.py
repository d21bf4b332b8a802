"""A span classifier configured by a dict, written as people write it, for advisor's script-mode
tests: a small encoder, a span pooler that loops in Python over every sequence's spans (reading
each span's bounds with .tolist(), slicing its tokens), and a head. The pooler's loop, 8 x 24 = 192 iterations a step, costs close to half the step by hand,
though each op in it is tiny (docs/benchmarks.md, "Costs of the script's own code").

    python span_pooler_train.py [--steps N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn

CONFIG = {
    "model": {"vocab": 200, "dim": 32, "layers": 2, "classes": 3},
    "data": {"batch_size": 8, "seq_len": 64, "spans": 24, "max_span": 6},
    "optim": {"lr": 3e-4, "weight_decay": 0.01},
    "threads": 1,  # its matmuls are small: one thread, and none waits for the other core
}


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab"], cfg["dim"])
        self.blocks = nn.ModuleList(Block(cfg["dim"]) for _ in range(cfg["layers"]))

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return x


class SpanPooler(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(2 * dim, dim)

    def forward(self, hidden, spans):
        pooled = []
        for b in range(hidden.shape[0]):
            for s in range(spans.shape[1]):
                start, end = spans[b, s].tolist()
                tokens = hidden[b, start:end]
                pooled.append(torch.cat([tokens.mean(0), tokens.amax(0)]))
        return self.proj(torch.stack(pooled).view(spans.shape[0], spans.shape[1], -1))


class SpanClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = Encoder(cfg)
        self.pooler = SpanPooler(cfg["dim"])
        self.head = nn.Linear(cfg["dim"], cfg["classes"])

    def forward(self, ids, spans):
        return self.head(self.pooler(self.encoder(ids), spans))


def make_batch(cfg, generator):
    ids = torch.randint(0, CONFIG["model"]["vocab"], (cfg["batch_size"], cfg["seq_len"]),
                        generator=generator)
    starts = torch.randint(0, cfg["seq_len"] - cfg["max_span"],
                           (cfg["batch_size"], cfg["spans"]), generator=generator)
    lengths = torch.randint(1, cfg["max_span"] + 1, starts.shape, generator=generator)
    labels = torch.randint(0, CONFIG["model"]["classes"], starts.shape, generator=generator)
    return ids, torch.stack([starts, starts + lengths], dim=-1), labels


def main(cfg=CONFIG):
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(cfg["threads"])
    generator = torch.Generator().manual_seed(0)
    model = SpanClassifier(cfg["model"])
    optimizer = torch.optim.AdamW(model.parameters(), **cfg["optim"])
    criterion = nn.CrossEntropyLoss()
    for step in range(args.steps):
        ids, spans, labels = make_batch(cfg["data"], generator)
        logits = model(ids, spans)
        loss = criterion(logits.reshape(-1, cfg["model"]["classes"]), labels.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
