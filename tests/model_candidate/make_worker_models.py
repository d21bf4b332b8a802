#!/usr/bin/env python3
"""Writes the small models of the worker tests (tests/model_candidate) into a folder:

    make_worker_models.py OUT_DIR

gather.pt  two blocks whose ``select`` module takes tokens with timm's PatchDropout idiom, inside a
           helper function that forward calls, a ``heads`` module that reorders the tokens of
           each of two heads with a 4-D gather on dim 2, and a ``partial`` module whose gather
           index spans only half the features (row indexing would not be the same there);
window.pt  the demo's planted gather alone (scripts/demo/make_demo.py): each token averaged over a
           window of tokens gathered with the PatchDropout idiom, most of the step, so that
           gather-to-index is verified in two A/B rounds even on a busy machine (about 2x);
plain.pt   linear layers only: no gather, no 4-D input;
conv.pt    a small convolutional net with a 4-D input, for channels-last;
attention.pt  hand-written attention four ways: the scale on q, on the scores, dividing the
           scores, and (not to be rewritten) with dropout between softmax and the second matmul;
crop_roll.pt  an input stage like the zoo's seed (scripts/zoo/cases/seed_dilate_crop.py): a
           branch on a string setting, a brightness jitter by a random factor, a mask dilated by
           a random radius with roll in nested loops, then a random crop of half the side;
crop_pool.pt  an input stage that closes a float mask with max-pooling passes in a loop, blurs the
           image with a 3x3 convolution and takes a random crop with narrow;
crop_mean.pt  an input stage that subtracts the image's mean before the crop: the crop cannot move;
crop_mixed.pt  an input stage that rolls a mask and then max-pools it before the crop: roll wraps
           the border around where pooling pads it, so the crop cannot move either.

All of them train with cross entropy and SGD; gather.pt runs with deterministic algorithms on.
Runs with PyTorch 1.13 and 2.x.
"""

import math
import os
import sys
from typing import Tuple

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import advisor_export  # noqa: E402

BATCH, TOKENS, DIM, KEEP, CLASSES = 4, 6, 8, 5, 3


def select_tokens(x: torch.Tensor, keep: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """timm's patch_dropout_forward, reduced to the gather."""
    return x.gather(1, keep.unsqueeze(-1).expand((-1, -1) + x.shape[2:])), keep


class TokenSelect(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("keep", torch.tensor([4, 0, 0, 3, 1]))
        # Weighting the kept tokens by position makes their order matter downstream.
        self.position = nn.Parameter(torch.linspace(0.5, 1.5, KEEP).unsqueeze(-1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keep = self.keep.unsqueeze(0).expand(x.shape[0], -1)
        selected, _ = select_tokens(x, keep)
        return selected * self.position


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(DIM, DIM)
        self.select = TokenSelect()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.select(torch.tanh(self.fc(x)))


class PartialGather(nn.Module):
    """A gather whose index covers half the features: matched, but not row indexing at run time."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keep = torch.arange(2, device=x.device).unsqueeze(0).expand(x.shape[0], -1)
        return x.gather(1, keep.unsqueeze(-1).expand(-1, -1, x.shape[2] // 2))


class HeadSelect(nn.Module):
    """Each of two heads takes its tokens in its own order: a 4-D gather on dim 2."""

    def __init__(self):
        super().__init__()
        self.register_buffer("order", torch.tensor([[4, 3, 2, 1, 0], [1, 0, 3, 2, 4]]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, width = x.shape
        heads = x.view(batch, tokens, 2, width // 2).transpose(1, 2)
        order = self.order.unsqueeze(0).expand(batch, -1, -1)
        picked = heads.gather(2, order.unsqueeze(-1).expand(-1, -1, -1, width // 2))
        # Weighting by position makes the order matter downstream.
        kept = picked.shape[2]
        weights = torch.linspace(0.5, 1.5, kept, device=x.device).unsqueeze(-1)
        return (picked * weights).transpose(1, 2).reshape(batch, kept, width)


class GatherModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.heads = HeadSelect()
        self.partial = PartialGather()
        self.head = nn.Linear(DIM // 2, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks[0](x)
        x = self.blocks[1](torch.cat([x, x[:, :1]], dim=1))  # back to TOKENS tokens
        return self.head(self.partial(self.heads(x)).mean(1))


class PlainModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 16), nn.ReLU(), nn.Linear(16, CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class ConvModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.conv(x)).mean((2, 3)))


HEADS = 2


def split_heads(qkv: torch.Tensor, x: torch.Tensor,
                heads: int) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    B, N, D = x.shape
    parts = qkv.reshape(B, N, 3, heads, D // heads).permute(2, 0, 3, 1, 4)
    return parts[0], parts[1], parts[2]


def merge_heads(out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return out.transpose(1, 2).reshape(x.shape)


class ScaledQuery(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.heads = HEADS
        self.scale = (DIM // HEADS) ** -0.5
        self.root = math.sqrt(DIM // HEADS)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = split_heads(self.qkv(x), x, self.heads)
        attn = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        return merge_heads(attn @ v, x)


class ScaledScores(ScaledQuery):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = split_heads(self.qkv(x), x, self.heads)
        attn = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * self.scale, dim=-1)
        return merge_heads(torch.matmul(attn, v), x)


class DividedScores(ScaledQuery):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = split_heads(self.qkv(x), x, self.heads)
        attn = (q @ k.transpose(-2, -1) / self.root).softmax(dim=-1)
        return merge_heads(attn @ v, x)


class DroppedWeights(ScaledQuery):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = split_heads(self.qkv(x), x, self.heads)
        attn = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        attn = nn.functional.dropout(attn, p=0.0, training=self.training)
        return merge_heads(attn @ v, x)


class AttentionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([ScaledQuery(), ScaledScores(), DividedScores(),
                                     DroppedWeights()])
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = x + layer(x)
        return self.head(x.mean(1))


WINDOW_TOKENS, WINDOW = 64, 256


class WindowMean(nn.Module):
    def __init__(self):
        super().__init__()
        neighbours = torch.randint(0, WINDOW_TOKENS, (WINDOW_TOKENS * WINDOW,),
                                   generator=torch.Generator().manual_seed(0))
        self.register_buffer("index", neighbours)
        self.window = WINDOW

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape
        idx = self.index.unsqueeze(0).expand(B, -1)
        gathered = x.gather(1, idx.unsqueeze(-1).expand(-1, -1, C))
        return gathered.view(B, N, self.window, C).mean(2)


class WindowModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4 * DIM, 4 * DIM)
        self.window = WindowMean()
        self.head = nn.Linear(4 * DIM, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.window(torch.tanh(self.embed(x))).mean(1))


SIDE, CROP, RADIUS = 32, 16, 2


class CropNet(nn.Module):
    """A 4-channel convolutional net behind an input stage that crops SIDE x SIDE images."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.head = nn.Linear(4, CLASSES)
        self.side, self.crop, self.radius = SIDE, CROP, RADIUS

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.conv(x)).mean([2, 3]))


class CropRoll(CropNet):
    def __init__(self):
        super().__init__()
        self.mode = "dilate"  # a setting the stage branches on, as the zoo's seed does

    def dilate(self, mask: torch.Tensor, r: int) -> torch.Tensor:
        out = mask
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                out = torch.maximum(out, torch.roll(mask, shifts=[dy, dx], dims=[2, 3]))
        return out

    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        if self.mode == "none":
            return images[:, :, :self.crop, :self.crop], labels
        gain = 0.8 + 0.4 * torch.rand([images.shape[0], 1, 1, 1])
        r = int(torch.randint(1, self.radius + 1, [1]))
        top = int(torch.randint(0, self.side - self.crop + 1, [1]))
        left = int(torch.randint(0, self.side - self.crop + 1, [1]))
        images = images * gain
        mask = self.dilate((images[:, :1] > 1.5).float(), r)
        x = torch.cat([images, mask], 1)
        return x[:, :, top:top + self.crop, left:left + self.crop], labels


class CropPool(CropNet):
    def close(self, mask: torch.Tensor) -> torch.Tensor:
        for _ in range(2):
            mask = nn.functional.max_pool2d(mask, 3, 1, 1)
            mask = 1 - nn.functional.max_pool2d(1 - mask, 3, 1, 1)
        return mask

    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        kernel = torch.full([3, 1, 3, 3], 1.0 / 9)
        top = int(torch.randint(0, self.side - self.crop + 1, [1]))
        left = int(torch.randint(0, self.side - self.crop + 1, [1]))
        blurred = nn.functional.conv2d(images, kernel, padding=1, groups=3)
        mask = self.close((images[:, :1] > 1.0).float())
        x = torch.cat([blurred, mask], 1)
        return x.narrow(2, top, self.crop).narrow(3, left, self.crop), labels


class CropMean(CropNet):
    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = images - images.mean()
        x = torch.cat([x, x[:, :1] > 0], 1)
        return x[:, :, 4:4 + self.crop, 4:4 + self.crop], labels


class CropMixed(CropNet):
    @torch.jit.export
    def prepare_batch(self, images: torch.Tensor,
                      labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        mask = torch.roll((images[:, :1] > 0).float(), [1, 1], [2, 3])
        mask = nn.functional.max_pool2d(mask, 3, 1, 1)
        x = torch.cat([images, mask], 1)
        return x[:, :, 4:4 + self.crop, 4:4 + self.crop], labels


def export(model, path, input_shape, deterministic=False, input_stage=None):
    advisor_export.export(
        model, path,
        inputs=[{"shape": input_shape, "dtype": "float32", "init": "randn"}],
        target={"shape": [BATCH], "dtype": "int64", "init": "randint", "high": CLASSES},
        loss="cross_entropy", optimizer={"name": "sgd", "lr": 0.01, "momentum": 0.9},
        deterministic=deterministic, source_model="tests/model_candidate/make_worker_models.py",
        input_stage=input_stage)


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    export(GatherModel(), os.path.join(out, "gather.pt"), [BATCH, TOKENS, DIM], deterministic=True)
    export(WindowModel(), os.path.join(out, "window.pt"), [BATCH, WINDOW_TOKENS, 4 * DIM],
           deterministic=True)
    export(PlainModel(), os.path.join(out, "plain.pt"), [BATCH, DIM])
    export(ConvModel(), os.path.join(out, "conv.pt"), [BATCH, 3, 8, 8])
    export(AttentionModel(), os.path.join(out, "attention.pt"), [BATCH, TOKENS, DIM])
    stage = {"method": "prepare_batch", "workers": 0}
    for name, model in (("crop_roll", CropRoll()), ("crop_pool", CropPool()),
                        ("crop_mean", CropMean()), ("crop_mixed", CropMixed())):
        export(model, os.path.join(out, name + ".pt"), [BATCH, 3, SIDE, SIDE], input_stage=stage)


if __name__ == "__main__":
    main()
