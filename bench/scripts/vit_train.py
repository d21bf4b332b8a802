#!/usr/bin/env python3
"""The seed case as a user's eager training script: timm's ViT-B/16 with patch_drop_rate=0.5,
deterministic algorithms on, batch 128, fp32, SGD, images from a Dataset through a DataLoader.
advisor should name patch_drop -> GatherBackward0 (deterministic gather backward sorts).

    vit_train.py [--steps N] [--compile] [--batch 128] [--workers 4] [--report-every 50]
                 [--torch-profiler STEPS]

--compile trains torch.compile(model). Every --report-every steps it prints the mean step time of
those steps ("steps 100-149: 168.2 ms/step"), synchronising the GPU only there: the benchmarks
compare these lines with and without advisor. --torch-profiler N profiles N steps after the first
report with torch.profiler (CPU and CUDA activity), as a user would, and prints their mean.
Random images (the GPU machine has no network); timm 1.0 API.
"""

import argparse
import time

import timm
import torch
from torch.utils.data import DataLoader, Dataset


class RandomImages(Dataset):
    def __init__(self, size, classes):
        self.size = size
        self.classes = classes

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        image = torch.randn(3, 224, 224, generator=generator)
        return image, int(torch.randint(0, self.classes, (1,), generator=generator))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--report-every", type=int, default=50)
    parser.add_argument("--torch-profiler", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    device = torch.device("cuda")
    model = timm.create_model("vit_base_patch16_224", patch_drop_rate=0.5).to(device)
    if args.compile:
        model = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = DataLoader(RandomImages(args.batch * 64, 1000), batch_size=args.batch, shuffle=True,
                        num_workers=args.workers, pin_memory=True, persistent_workers=True,
                        drop_last=True)

    step = 0
    block_start = None
    profiler = None
    while step < args.steps:
        for images, labels in loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            if profiler is not None:
                profiler.step()
                profiled_steps += 1
                if profiled_steps == args.torch_profiler:
                    torch.cuda.synchronize()
                    print("torch.profiler: %d steps, %.1f ms/step" % (
                        profiled_steps,
                        1000 * (time.perf_counter() - profiled_from) / profiled_steps), flush=True)
                    profiler.__exit__(None, None, None)
                    profiler = None
                    args.torch_profiler = 0
            if step % args.report_every == 0:
                torch.cuda.synchronize()
                now = time.perf_counter()
                if block_start is not None:
                    print("steps %d-%d: %.1f ms/step (loss %.3f)" % (
                        step - args.report_every, step - 1,
                        1000 * (now - block_start) / args.report_every, loss.item()), flush=True)
                block_start = now
                if args.torch_profiler and profiler is None and step >= 2 * args.report_every:
                    profiler = torch.profiler.profile(
                        activities=[torch.profiler.ProfilerActivity.CPU,
                                    torch.profiler.ProfilerActivity.CUDA])
                    profiler.__enter__()
                    profiled_from = time.perf_counter()
                    profiled_steps = 0
            if step >= args.steps:
                break


if __name__ == "__main__":
    main()
