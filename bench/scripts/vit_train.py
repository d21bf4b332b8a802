#!/usr/bin/env python3
"""The seed case as a user's eager training script: timm's ViT-B/16 with patch_drop_rate=0.5,
deterministic algorithms on, batch 128, fp32, SGD, images from a Dataset through a DataLoader.
advisor should name patch_drop -> GatherBackward0 (deterministic gather backward sorts).

    vit_train.py [--steps N] [--compile] [--compile-mode MODE] [--batch 128] [--workers 6] [--report-every 50]
                 [--torch-profiler STEPS] [--gather-to-index]

--compile trains torch.compile(model). It prints its own step times (step_report.py): the mean of
every --report-every steps, and with --torch-profiler N the mean of N steps under torch.profiler;
the benchmarks compare these lines with and without advisor. --gather-to-index is advisor's
gather-to-index fix made by hand, as a user would: patch_drop keeps its tokens by indexing
(`advisor diff` of a run without it and one with it: docs/diff.md).
Random images (the GPU machine has no network); timm 1.0 API.
"""

import argparse

import timm
import torch
from step_report import StepReport
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


class IndexedPatchDropout(torch.nn.Module):
    """timm's PatchDropout keeping its tokens by indexing instead of gather: the same tokens for
    the same random draw, and a backward that scatters without the deterministic sort."""

    def __init__(self, prob, num_prefix_tokens):
        super().__init__()
        self.prob = prob
        self.num_prefix_tokens = num_prefix_tokens

    def forward(self, x):
        if not self.training or self.prob == 0.0:
            return x
        prefix, x = x[:, :self.num_prefix_tokens], x[:, self.num_prefix_tokens:]
        batch, tokens = x.shape[0], x.shape[1]
        keep = max(1, int(tokens * (1.0 - self.prob)))
        keep_indices = torch.argsort(torch.randn(batch, tokens, device=x.device), dim=-1)[:, :keep]
        x = x[torch.arange(batch, device=x.device).unsqueeze(-1), keep_indices]
        return torch.cat((prefix, x), dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--compile-mode", default=None,
                        help="torch.compile's mode (max-autotune, reduce-overhead); implies --compile")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--report-every", type=int, default=50)
    parser.add_argument("--torch-profiler", type=int, default=0)
    parser.add_argument("--gather-to-index", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    device = torch.device("cuda")
    model = timm.create_model("vit_base_patch16_224", patch_drop_rate=0.5).to(device)
    if args.gather_to_index:
        model.patch_drop = IndexedPatchDropout(model.patch_drop.prob,
                                               model.patch_drop.num_prefix_tokens)
    if args.compile or args.compile_mode:
        model = torch.compile(model, mode=args.compile_mode)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = DataLoader(RandomImages(args.batch * 64, 1000), batch_size=args.batch, shuffle=True,
                        num_workers=args.workers, pin_memory=True, persistent_workers=True,
                        drop_last=True)

    report = StepReport(args.report_every, args.torch_profiler, cuda=True)
    step = 0
    while step < args.steps:
        for images, labels in loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            report.step_done(step)
            if step >= args.steps:
                break


if __name__ == "__main__":
    main()
