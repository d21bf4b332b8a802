#!/usr/bin/env python3
"""A user's training script for one real model family (families.py), as its users write it: a
DataLoader with workers and pinned memory, AdamW, the family's own call (keyword arguments and the
ModelOutput's loss for Hugging Face models), fp32 with nothing switched on. advisor bisects it
unchanged (scripts/gpu-check.sh real_models):

    advisor bisect -- python3 bench/real_models/train.py --family gpt2

The memory check (memory_check.py) runs it under a memory limit (--memory-fraction, the share of
the GPU torch's allocator may take) to run out of memory, and with a fix switched on by hand
(--fix bf16-autocast, hf-sdpa-attention or activation-checkpointing: the library's own switch,
every block) to see that fix fit under the same limit.
"""

import argparse
import contextlib

import torch
from torch.utils.data import DataLoader

from families import FAMILIES, build_model


def to_device(batch, device):
    if isinstance(batch, dict):
        return {key: value.to(device, non_blocking=True) for key, value in batch.items()}
    return [value.to(device, non_blocking=True) for value in batch]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", required=True, choices=sorted(FAMILIES))
    parser.add_argument("--steps", type=int, default=100000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--memory-fraction", type=float)
    parser.add_argument("--fix", default="", choices=["", "bf16-autocast", "hf-sdpa-attention",
                                                         "activation-checkpointing"])
    args = parser.parse_args()

    torch.manual_seed(0)
    family = FAMILIES[args.family]
    device = torch.device(args.device)
    if args.memory_fraction:
        torch.cuda.set_per_process_memory_fraction(args.memory_fraction, torch.cuda.current_device())
    model = build_model(family, args.fix, device)
    model.train()
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if args.fix == "bf16-autocast" \
        else contextlib.nullcontext()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = DataLoader(family.dataset(), batch_size=family.batch, shuffle=True,
                        num_workers=args.workers, pin_memory=device.type == "cuda",
                        persistent_workers=args.workers > 0,
                        drop_last=True, collate_fn=family.collate)
    step = 0
    while step < args.steps:
        for batch in loader:
            with autocast:
                loss = family.loss(model, to_device(batch, device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            if step % 100 == 0:
                print("step %d loss %.3f" % (step, loss.item()), flush=True)
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
