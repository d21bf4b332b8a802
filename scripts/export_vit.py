#!/usr/bin/env python3
"""Exports timm's ViT-B/16 with PatchDropout as an advisor archive: the GPU check's workload.

    export_vit.py [OUT.pt] [--batch 128] [--patch-drop 0.5] [--indexing] [--nondeterministic]
                  [--method script|trace] [--steps N]

The model is ``timm.models.vision_transformer.VisionTransformer(patch_drop_rate=0.5)`` with its
defaults, i.e. ViT-B/16 at 224x224 with 1000 classes, randomly initialised (never pretrained: the
GPU machine has no network). The workload: batch 128 of fp32 images, cross-entropy over 1000
classes, SGD (lr 0.001, momentum 0.9), deterministic algorithms on, device cuda.

With deterministic algorithms on, the backward of PatchDropout's
``x.gather(1, keep.unsqueeze(-1).expand(-1, -1, D))`` (GatherBackward0) takes CUDA's sort-based
deterministic path; advisor should find it as ``patch_drop`` -> GatherBackward0. ``--indexing``
swaps timm's PatchDropout for one that takes the same tokens by row indexing (``x[rows, keep]``,
the fix advisor's recipe applies), to compare; ``--nondeterministic`` turns deterministic algorithms
off. The random draws are timm's (randn then argsort), so both variants keep the same tokens.

Scripts the model with torch.jit.script; if that fails it says so and traces instead. ``--steps N``
then times N training steps of the exported module in Python, a baseline to set beside advisor's.

Needs timm (1.0 API) and a GPU (``--device cpu`` runs it elsewhere, slowly).
"""

import argparse
import os
import statistics
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import advisor_export  # noqa: E402  (this folder is on the path only from here on)


class IndexingPatchDropout(nn.Module):
    """timm's PatchDropout, with the kept tokens taken by row indexing instead of torch.gather.

    Same random draws and same values as timm's module; only the backward differs: IndexBackward0
    (index_put with accumulation) instead of GatherBackward0.
    """

    def __init__(self, prob: float, num_prefix_tokens: int, ordered: bool):
        super().__init__()
        self.prob = prob
        self.num_prefix_tokens = num_prefix_tokens
        self.ordered = ordered

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.prob == 0.0:
            return x
        prefix = x[:, :self.num_prefix_tokens]
        x = x[:, self.num_prefix_tokens:]
        B = x.shape[0]
        L = x.shape[1]
        num_keep = max(1, int(L * (1.0 - self.prob)))
        keep = torch.argsort(torch.randn(B, L, device=x.device), dim=-1)[:, :num_keep]
        if self.ordered:
            keep = keep.sort(dim=-1)[0]
        rows = torch.arange(B, device=x.device).unsqueeze(-1)
        x = x[rows, keep]
        if self.num_prefix_tokens > 0:
            x = torch.cat((prefix, x), dim=1)
        return x


def build_model(patch_drop, classes, indexing):
    try:
        import timm
        from timm.layers import PatchDropout
        from timm.models.vision_transformer import VisionTransformer
    except ImportError as e:
        raise SystemExit(f"export_vit: needs timm (1.0 API): {e}")
    model = VisionTransformer(num_classes=classes, patch_drop_rate=patch_drop)
    if indexing:
        timm_drop = model.patch_drop
        if not isinstance(timm_drop, PatchDropout):
            raise SystemExit("export_vit: --indexing needs --patch-drop > 0 (model.patch_drop is "
                             f"{type(timm_drop).__name__}, not timm's PatchDropout)")
        if getattr(timm_drop, "return_indices", False):
            raise SystemExit("export_vit: this timm's PatchDropout returns indices; --indexing "
                             "only replaces the plain module")
        model.patch_drop = IndexingPatchDropout(timm_drop.prob, timm_drop.num_prefix_tokens,
                                                getattr(timm_drop, "ordered", False))
    return model, timm.__version__


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", nargs="?", default="vit_b16_patchdrop.pt")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--patch-drop", type=float, default=0.5,
                        help="PatchDropout probability (default 0.5)")
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("--indexing", action="store_true",
                        help="replace PatchDropout's gather by row indexing (the fix)")
    parser.add_argument("--nondeterministic", action="store_true",
                        help="workload without torch.use_deterministic_algorithms")
    parser.add_argument("--method", choices=advisor_export.METHODS, default="script",
                        help="script (default; falls back to trace if it fails) or trace")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=0,
                        help="time this many training steps of the export in Python")
    args = parser.parse_args()
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("export_vit: no CUDA device here (use --device cpu to run it anyway)")

    torch.manual_seed(args.seed)
    model, timm_version = build_model(args.patch_drop, args.classes, args.indexing)
    variant = "row-indexing PatchDropout" if args.indexing else "timm PatchDropout (gather)"
    deterministic = not args.nondeterministic
    spec = dict(
        inputs=[{"shape": [args.batch, 3, 224, 224], "dtype": "float32", "init": "randn"}],
        target={"shape": [args.batch], "dtype": "int64", "init": "randint",
                "high": args.classes},
        loss="cross_entropy",
        optimizer={"name": "sgd", "lr": 0.001, "momentum": 0.9, "weight_decay": 0.0},
        deterministic=deterministic, seed=args.seed, device=args.device,
        description=f"ViT-B/16, patch_drop_rate={args.patch_drop}, {variant}, batch "
                    f"{args.batch}, fp32, deterministic={str(deterministic).lower()}",
        source_model=f"timm {timm_version} VisionTransformer(patch_drop_rate={args.patch_drop})")
    try:
        scripted = advisor_export.export(model, args.output, method=args.method, **spec)
        method = args.method
    except advisor_export.CompileError as e:
        if args.method != "script":
            raise SystemExit(f"export_vit: {e}")
        print(f"export_vit: scripting failed, tracing instead. The reason:\n{e}", file=sys.stderr)
        scripted = advisor_export.export(model, args.output, method="trace", **spec)
        method = "trace"
    except (ValueError, advisor_export.ExportError) as e:
        raise SystemExit(f"export_vit: {e}")
    print(f"wrote {args.output} ({method}, {variant}, batch {args.batch})")

    if args.steps:
        workload = advisor_export.make_workload(**spec)
        times = advisor_export.time_steps(scripted, workload, args.steps)
        print(f"{args.steps} training steps after 3 warm-up: median "
              f"{statistics.median(times) * 1e3:.1f} ms, min {min(times) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
