#!/usr/bin/env python3
"""A user's training script for one real model family (families.py), as its users write it: a
DataLoader with workers and pinned memory, AdamW, the family's own call (keyword arguments and the
ModelOutput's loss for Hugging Face models), fp32 with nothing switched on. advisor bisects it
unchanged (scripts/gpu-check.sh real_models):

    advisor bisect -- python3 bench/real_models/train.py --family gpt2
"""

import argparse

import torch
from torch.utils.data import DataLoader

from families import FAMILIES


def to_device(batch, device):
    if isinstance(batch, dict):
        return {key: value.to(device, non_blocking=True) for key, value in batch.items()}
    return [value.to(device, non_blocking=True) for value in batch]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", required=True, choices=sorted(FAMILIES))
    parser.add_argument("--steps", type=int, default=100000)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()

    torch.manual_seed(0)
    family = FAMILIES[args.family]
    device = torch.device("cuda")
    model = family.build().to(device)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = DataLoader(family.dataset(), batch_size=family.batch, shuffle=True,
                        num_workers=args.workers, pin_memory=True, persistent_workers=True,
                        drop_last=True, collate_fn=family.collate)
    step = 0
    while step < args.steps:
        for batch in loader:
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
