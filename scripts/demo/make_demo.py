#!/usr/bin/env python3
"""Writes advisor's bundled demo: a small ViT-like classifier with one planted bottleneck.

    make_demo.py OUT.pt [--indexing] [--measure]

writes OUT.pt (TorchScript, training workload inside) and OUT.expected.json, the answer that
``advisor bisect OUT.pt`` should give:

    {"path": "blocks.3.mlp.window", "phase": "backward", "op": "GatherBackward0",
     "forward_op": "aten::gather"}

The model: a patch embedding, twelve pre-norm transformer blocks in a ModuleList (attention
``mixer``, then ``mlp``), and a Sequential head. Each block's MLP is fc1, GELU, ``window``, fc2. In
eleven blocks ``window`` is an Identity; in blocks.3 it gives the hidden features local context, as
LocalViT-style MLPs do: every token's hidden vector becomes the mean over the 9x9 window of tokens
around it on the patch grid. The window is gathered with timm's PatchDropout idiom,
``h.gather(1, idx.unsqueeze(-1).expand(-1, -1, C))``, over an index 81 times as long as the token
sequence, so on the CPU the gather and its backward (GatherBackward0, a serial scatter-add) cost
more than the rest of the block several times over. Bisection needs three levels:
root -> blocks.3 -> blocks.3.mlp -> blocks.3.mlp.window.

Taking the rows by indexing instead (``h[rows, idx]``), the rewrite advisor's recipe applies, gives
the same values; ``--indexing`` exports that variant to compare with (no answer file).

--measure prints the calibration (scripts/advisor_measure.py); scripts/demo/README.md records its
figures. Runs with PyTorch 1.13 and 2.x; on the project's Debian machines use /usr/bin/python3.
"""

import argparse
import json
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import advisor_export  # noqa: E402  (scripts/ is on the path only from here on)

IMAGE = 48          # input images are IMAGE x IMAGE RGB
PATCH = 4           # a 12 x 12 patch grid: 144 tokens
DIM = 16
HEADS = 2
MLP_RATIO = 4
DEPTH = 12
WINDOW = 9          # the planted block averages each token's hidden vector over a 9 x 9 window
PLANTED_BLOCK = 3
CLASSES = 10
BATCH = 8           # the gathered windows, (B, N * 81, 64) floats, take 24 MB; see README.md

EXPECTED = {"path": f"blocks.{PLANTED_BLOCK}.mlp.window", "phase": "backward",
            "op": "GatherBackward0", "forward_op": "aten::gather"}


def window_index(grid, window):
    """Flat token indices of the window x window neighbourhood of every token of a grid x grid
    patch grid, token after token (neighbours past the border are clamped to it)."""
    rows = torch.arange(grid).view(grid, 1, 1, 1)
    cols = torch.arange(grid).view(1, grid, 1, 1)
    offsets = torch.arange(window) - window // 2
    neighbour_rows = (rows + offsets.view(1, 1, window, 1)).clamp(0, grid - 1)
    neighbour_cols = (cols + offsets.view(1, 1, 1, window)).clamp(0, grid - 1)
    return (neighbour_rows * grid + neighbour_cols).reshape(-1)


class WindowGather(nn.Module):
    """Replaces every token's features by their mean over its window on the patch grid.

    The windows are gathered as one (B, N * window**2, C) tensor with torch.gather along the token
    dimension, the way timm's PatchDropout selects tokens: this is the planted hot spot.
    """

    def __init__(self, grid, window):
        super().__init__()
        self.neighbours = window * window
        self.scale = 1.0 / self.neighbours
        self.register_buffer("index", window_index(grid, window))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape
        idx = self.index.unsqueeze(0).expand(B, -1)
        gathered = x.gather(1, idx.unsqueeze(-1).expand(-1, -1, C))
        return gathered.view(B, N, self.neighbours, C).sum(2) * self.scale


class WindowIndexing(WindowGather):
    """WindowGather with the gather written as row indexing: the same values."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape
        idx = self.index.unsqueeze(0).expand(B, -1)
        rows = torch.arange(B, device=x.device).unsqueeze(-1)
        return x[rows, idx].view(B, N, self.neighbours, C).sum(2) * self.scale


class Mixer(nn.Module):
    """Multi-head self-attention."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, D = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, D))


class Mlp(nn.Module):
    """fc1, GELU, ``window`` (local context for the hidden features, or Identity), fc2."""

    def __init__(self, dim, hidden, window):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.window = window
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.window(self.act(self.fc1(x))))


class Block(nn.Module):
    def __init__(self, dim, heads, window):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.mixer = Mixer(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, MLP_RATIO * dim, window)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.mixer(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class PatchEmbed(nn.Module):
    def __init__(self, patch, dim):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x).flatten(2).transpose(1, 2)


class DemoViT(nn.Module):
    def __init__(self, indexing=False):
        super().__init__()
        grid = IMAGE // PATCH
        planted = (WindowIndexing if indexing else WindowGather)(grid, WINDOW)
        self.patch_embed = PatchEmbed(PATCH, DIM)
        self.pos_embed = nn.Parameter(torch.randn(1, grid * grid, DIM) * 0.02)
        self.blocks = nn.ModuleList([
            Block(DIM, HEADS, planted if i == PLANTED_BLOCK else nn.Identity())
            for i in range(DEPTH)])
        self.head = nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, CLASSES))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(images) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(1))


def workload_spec(indexing):
    variant = "row indexing (the fix)" if indexing else "gather (planted)"
    return dict(
        inputs=[{"shape": [BATCH, 3, IMAGE, IMAGE], "dtype": "float32", "init": "randn"}],
        target={"shape": [BATCH], "dtype": "int64", "init": "randint", "high": CLASSES},
        loss="cross_entropy",
        optimizer={"name": "sgd", "lr": 0.001, "momentum": 0.9, "weight_decay": 0.0},
        deterministic=True,
        description=f"advisor demo: ViT-like, {DEPTH} blocks; blocks.{PLANTED_BLOCK}.mlp.window "
                    f"averages hidden features over {WINDOW}x{WINDOW} token windows by {variant}",
        source_model="scripts/demo/make_demo.py")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="the archive to write, e.g. demo.pt")
    parser.add_argument("--indexing", action="store_true",
                        help="export the fixed variant (row indexing instead of gather)")
    parser.add_argument("--measure", action="store_true",
                        help="print step time, per-level module timings and top ops")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = DemoViT(indexing=args.indexing)
    spec = workload_spec(args.indexing)
    scripted = advisor_export.export(model, args.output, **spec)
    print(f"wrote {args.output}")
    if not args.indexing:
        expected_path = os.path.splitext(args.output)[0] + ".expected.json"
        with open(expected_path, "w", encoding="utf-8") as f:
            json.dump(EXPECTED, f, indent=2)
            f.write("\n")
        print(f"wrote {expected_path}")
    if args.measure:
        import advisor_measure  # only for --measure: the build's export needs no more
        advisor_measure.measure(model, scripted, advisor_export.make_workload(**spec),
                                EXPECTED["path"])


if __name__ == "__main__":
    main()
