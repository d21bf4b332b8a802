"""Sequence classification with a relative-position token mixer, written as people write it, for
advisor's script-mode tests: token embeddings, a mixer block that weighs every pair of positions
by a learned relative-position kernel (an elementwise product over batch x seq x seq x dim), a
feed-forward block and a head, trained by a plain loop. The mixer's product and the dropout after
its projection both make MulBackward0 nodes in the backward: the product costs most of the step,
the dropout next to nothing (issue #33 item 2: the report named the dropout's line).

    python relpos_train.py [--steps N] [--tag TEXT]

--tag is ignored (tests find the script's processes by it).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 500
SEQ_LEN = 64
DIM = 64
CLASSES = 4
BATCH_SIZE = 16
DROPOUT = 0.1
LR = 1e-3


class RelPosMixer(nn.Module):
    def __init__(self, dim, seq_len, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        # one weight per (query, key) position pair and channel
        self.rel_pos = nn.Parameter(torch.randn(seq_len, seq_len, dim) / seq_len)
        self.proj = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        batch, seq, dim = x.shape
        h = self.norm(x)
        keys = h.unsqueeze(1).expand(batch, seq, seq, dim)  # every query sees every key
        pairs = keys * self.rel_pos  # (batch, query, key, dim)
        h = pairs.sum(dim=2)
        h = self.dropout(self.proj(h))
        return x + h


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.mixer = RelPosMixer(DIM, SEQ_LEN, DROPOUT)
        self.ff = FeedForward(DIM, 2 * DIM)
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, ids):
        x = self.embed(ids)
        x = self.mixer(x)
        x = self.ff(x)
        return self.head(x.mean(dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()

    torch.manual_seed(0)
    # small ops: one thread, so that no op waits for the other core of a busy machine
    torch.set_num_threads(1)

    model = Classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    model.train()
    for step in range(args.steps):
        ids = torch.randint(0, VOCAB, (BATCH_SIZE, SEQ_LEN))
        labels = ids[:, 0] % CLASSES
        logits = model(ids)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
