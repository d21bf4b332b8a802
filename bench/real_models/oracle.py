#!/usr/bin/env python3
"""The by-hand oracle for one real model family: each single fix switched on by hand, as a
performance engineer would, and timed in this one process against the baseline the user's script
runs (train.py: fp32, eager attention, nothing switched on). Prints one JSON line:
{"family", "device", "torch", "baseline_ms", "fixes": {recipe: {"ms", "speedup"}}}.

    python3 bench/real_models/oracle.py --family gpt2 [--steps 20] [--compile]

The step is timed on one batch kept on the GPU (the input pipeline is the script's business, not
the fix's): CUDA events around `--steps` steps after `--warmup` discarded ones, the median step.
torch.compile is measured only with --compile (its compilation takes minutes per family).
"""

import argparse
import contextlib
import json
import statistics

import torch

from families import FAMILIES, build_model, fixes_for


def batch_on(family, device):
    dataset = family.dataset()
    rows = [dataset[i] for i in range(family.batch)]
    if family.collate is not None:
        return {k: v.to(device) for k, v in family.collate(rows).items()}
    images = torch.stack([image for image, _ in rows]).to(device)
    labels = torch.tensor([label for _, label in rows], device=device)
    return images, labels


def time_steps(family, fix, device, warmup, steps):
    torch.manual_seed(0)
    model = build_model(family, fix, device)
    if fix == "torch-compile":
        model = torch.compile(model)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    batch = batch_on(family, device)
    if fix == "channels-last" and not family.keyword:
        batch = (batch[0].contiguous(memory_format=torch.channels_last), batch[1])
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if fix == "bf16-autocast" \
        else contextlib.nullcontext()
    # The baseline keeps torch's defaults (TF32 off in matmuls, on in cuDNN's convolutions); the
    # fix turns on both, as the tf32-matmul recipe does.
    torch.backends.cuda.matmul.allow_tf32 = fix == "tf32-matmul"
    torch.backends.cudnn.benchmark = fix == "cudnn-benchmark"
    times = []
    for index in range(warmup + steps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        with autocast:
            loss = family.loss(model, batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        end.record()
        end.synchronize()
        if index >= warmup:
            times.append(start.elapsed_time(end))
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    del model, optimizer
    torch.cuda.empty_cache()
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", required=True, choices=sorted(FAMILIES))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--compile", action="store_true")
    args = parser.parse_args()
    family = FAMILIES[args.family]
    device = torch.device("cuda")
    baseline = time_steps(family, "", device, args.warmup, args.steps)
    fixes = {}
    for fix in fixes_for(family):
        if fix == "torch-compile" and not args.compile:
            continue
        ms = time_steps(family, fix, device, args.warmup + (10 if fix == "torch-compile" else 0),
                        args.steps)
        fixes[fix] = {"ms": round(ms, 3), "speedup": round(baseline / ms, 4)}
    print(json.dumps({"family": family.name, "device": torch.cuda.get_device_name(),
                      "torch": torch.__version__, "batch": family.batch,
                      "baseline_ms": round(baseline, 3), "fixes": fixes}), flush=True)


if __name__ == "__main__":
    main()
