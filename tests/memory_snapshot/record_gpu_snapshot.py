#!/usr/bin/env python3
"""Records a real allocator snapshot on a GPU, for the fixtures of tests/data/snapshots/recorded/.

    python3 tests/memory_snapshot/record_gpu_snapshot.py OUT.pickle   # writes OUT.pickle, OUT.json

The fixtures written by make_snapshots.py come from a simulated allocator; this one is torch's
own: a small transformer-style model (an embedding, four blocks of attention and MLP, a head)
trained three steps with AdamW on CUDA, its module calls and phases annotated with
record_function, the history recorded from before the first allocation, as a user records one
(torch.cuda.memory._record_memory_history, then _dump_snapshot). Beside it OUT.json holds torch's
own counters of the same process, which the replay of the snapshot must reproduce:
max_memory_allocated over the recorded history (reset when recording began) and
memory_allocated at the dump.
"""

import argparse
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.profiler import record_function


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        batch, tokens, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(batch, tokens, 3, self.heads, -1).unbind(2)
        scores = q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2) / (width // self.heads) ** 0.5
        attended = (scores.softmax(-1) @ v.transpose(1, 2)).transpose(1, 2).reshape(x.shape)
        x = x + self.proj(attended)
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Model(nn.Module):
    def __init__(self, vocab=4096, width=256, depth=4, heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(depth))
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        with record_function("embed"):
            x = self.embed(ids)
        for index, block in enumerate(self.blocks):
            with record_function("blocks.%d" % index):
                x = block(x)
        with record_function("head"):
            return self.head(x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the snapshot's path (.pickle); its counters go beside, .json")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)

    options = {"max_entries": 100000, "stacks": "python"}
    try:  # record_function ranges into the snapshot as external_annotations (torch 2.5+)
        torch.cuda.memory._record_memory_history(global_record_annotations=True, **options)
    except TypeError:
        torch.cuda.memory._record_memory_history(**options)
    torch.cuda.reset_peak_memory_stats(device)

    model = Model().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(args.steps):
        ids = torch.randint(0, 4096, (8, 256), device=device)
        with record_function("forward"):
            logits = model(ids)
            loss = F.cross_entropy(logits.flatten(0, 1), ids.flatten())
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        del logits, loss
    torch.cuda.synchronize(device)

    counters = {"torch": torch.__version__, "device": torch.cuda.get_device_name(device),
                "steps": args.steps,
                "max_memory_allocated": torch.cuda.max_memory_allocated(device),
                "memory_allocated": torch.cuda.memory_allocated(device),
                "memory_reserved": torch.cuda.memory_reserved(device)}
    torch.cuda.memory._dump_snapshot(args.out)
    torch.cuda.memory._record_memory_history(enabled=None)
    sidecar = args.out[:-len(".pickle")] if args.out.endswith(".pickle") else args.out
    with open(sidecar + ".json", "w") as out:
        json.dump(counters, out, indent=1)
    print(json.dumps(counters))


if __name__ == "__main__":
    main()
