#!/usr/bin/env python3
"""Data-parallel training as a user's script, for advisor's benchmarks of several ranks: timm's
ViT-B/16 under DistributedDataParallel (or FullyShardedDataParallel with --fsdp) on synthetic
images, one rank per GPU over NCCL; on a machine without GPUs, gloo on the CPU.

    torchrun --standalone --nproc_per_node 2 ddp_vit_train.py [--steps N] [--batch 4]
        [--fsdp] [--accumulate K] [--tiny] [--report-every 50] [--torch-profiler STEPS]

ViT-B/16's 86 M parameters make 344 MB of float32 gradients to all-reduce each step, and AdamW
keeps twice as much state. At a small batch per GPU (4 by default) communication is a real share
of the step and the parameters, gradients and optimizer state most of the memory: measured on
two H100s with torch 2.11 (a plain DDP loop, AdamW), batch 32 took 93.8 ms a step with two ranks
and 93.5 ms with one (the all-reduce hidden), its state 1320 MiB of a 5106 MiB peak; batch 8
35.3 ms, 1320 of 2634 MiB. --accumulate K runs K micro-batches per optimizer step, each backward
synchronising its gradients (the script does not use no_sync()). --fsdp wraps each transformer
block in FSDP (FULL_SHARD, use_orig_params on torch 2.x). --tiny trains a small stack of linear
blocks instead (no timm), so that the DDP paths run under Debian's torch 1.13 on a CPU with gloo
(its FSDP does not import under Python 3.11). Rank 0 prints its own step times (step_report.py)
for bench/script_overhead.py; nothing here knows about advisor.
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from step_report import StepReport
from torch.nn.parallel import DistributedDataParallel


class TinyNet(nn.Module):
    """A few residual MLP blocks on flattened 3x32x32 images: small enough for two CPU ranks."""

    def __init__(self, width=256, depth=4, classes=10):
        super().__init__()
        self.stem = nn.Linear(3 * 32 * 32, width)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width * 2),
                                                  nn.GELU(), nn.Linear(width * 2, width))
                                    for _ in range(depth))
        self.head = nn.Linear(width, classes)

    def forward(self, images):
        x = self.stem(images.flatten(1))
        for block in self.blocks:
            x = x + block(x)
        return self.head(x)


def build_model(args, device):
    if args.tiny:
        return TinyNet().to(device), (3, 32, 32), 10
    import timm  # only for the full model: the GPU machine has it, CI's machine need not

    return timm.create_model(args.model).to(device), (3, 224, 224), 1000


def wrap(model, args, device):
    if not args.fsdp:
        return DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda"
                                       else None)
    import functools
    import inspect

    try:
        from torch.distributed.fsdp import FullyShardedDataParallel
        from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
    except ValueError as error:  # Debian's torch 1.13 under Python 3.11: a dataclass it rejects
        raise SystemExit("--fsdp: this torch's FSDP does not import under Python %s (%s)"
                         % (sys.version.split()[0], error))

    # One FSDP unit per transformer block (per MLP block with --tiny), as FSDP is used for
    # transformers: each block's parameters are gathered for its forward and backward only.
    policy = functools.partial(transformer_auto_wrap_policy,
                               transformer_layer_cls={type(model.blocks[0])})
    options = {"auto_wrap_policy": policy}
    if device.type == "cuda":
        options["device_id"] = device
    if "use_orig_params" in inspect.signature(FullyShardedDataParallel.__init__).parameters:
        options["use_orig_params"] = True  # torch 2.x: the optimizer sees the model's parameters
    return FullyShardedDataParallel(model, **options)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=4, help="per rank")
    parser.add_argument("--model", default="vit_base_patch16_224")
    parser.add_argument("--fsdp", action="store_true")
    parser.add_argument("--accumulate", type=int, default=1)
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--report-every", type=int, default=50)
    parser.add_argument("--torch-profiler", type=int, default=0)
    args = parser.parse_args()

    cuda = torch.cuda.is_available() and not args.tiny
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if cuda else "gloo")
    rank = dist.get_rank()

    torch.manual_seed(0)
    model, image_shape, classes = build_model(args, device)
    model = wrap(model, args, device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    # A few synthetic batches made once, on the device: the input pipeline stays out of the step.
    generator = torch.Generator().manual_seed(1 + rank)
    batches = [(torch.randn((args.batch,) + image_shape, generator=generator).to(device),
                torch.randint(0, classes, (args.batch,), generator=generator).to(device))
               for _ in range(4)]

    report = StepReport(args.report_every, args.torch_profiler, cuda=cuda) if rank == 0 else None
    for step in range(1, args.steps + 1):
        optimizer.zero_grad(set_to_none=True)
        for micro in range(args.accumulate):
            images, labels = batches[(step * args.accumulate + micro) % len(batches)]
            loss = loss_fn(model(images), labels) / args.accumulate
            loss.backward()
        optimizer.step()
        if report is not None:
            report.step_done(step)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
