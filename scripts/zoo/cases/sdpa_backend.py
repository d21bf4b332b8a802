"""One long-sequence scaled_dot_product_attention mixer among cheap per-frame layers, under bf16
autocast.

A frame encoder: a per-frame projection, then ``spine``, an OrderedDict Sequential of a per-frame
feed-forward layer (``spine.pre_ffn``), ``spine.long_range``: multi-head self-attention over 8192
frames through F.scaled_dot_product_attention, and another feed-forward layer
(``spine.post_ffn``), each residual, then a pooled linear head. The workload runs forward and loss
under bfloat16 autocast, so SDPA gets bfloat16 q, k, v and runs on a fused backend: the one
PyTorch's fixed priority order picks (cuDNN attention with PyTorch 2.11 on an H200, measured;
flash attention where cuDNN is not preferred), not the one measured fastest. The attention's T^2 work is about 9 times
the FLOPs of either feed-forward layer; its backward is the step's costliest part.

GPU only: LibTorch 1.13 (the CPU machines) has no scaled_dot_product_attention, and advisor runs
autocast on CUDA only.
"""

from collections import OrderedDict

import torch
from torch import nn
from torch.nn import functional as F

from zoo_case import classes, floats, workload


class LongRangeAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, frames, dim = x.shape
        qkv = self.qkv(x).view(batch, frames, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        mixed = F.scaled_dot_product_attention(q, k, v)
        return x + self.out(mixed.transpose(1, 2).reshape(batch, frames, dim))


class FrameFFN(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 2 * dim)
        self.down = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(F.gelu(self.up(x)))


class FrameEncoder(nn.Module):
    def __init__(self, features, dim, heads, count):
        super().__init__()
        self.project = nn.Linear(features, dim)
        self.spine = nn.Sequential(OrderedDict([
            ("pre_ffn", FrameFFN(dim)),
            ("long_range", LongRangeAttention(dim, heads)),
            ("post_ffn", FrameFFN(dim)),
        ]))
        self.head = nn.Linear(dim, count)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.spine(self.project(x)).mean(1))


def build(size):
    if size != "cuda":
        raise ValueError("sdpa_backend has a GPU size only")
    batch, frames, dim, heads = 4, 8192, 512, 8
    spec = workload([floats(batch, frames, 64)], classes(batch, 10),
                    description=f"spine.long_range: SDPA over {frames} frames under bf16 autocast")
    return FrameEncoder(64, dim, heads, 10), dict(spec, autocast="bfloat16")
