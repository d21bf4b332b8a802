#!/usr/bin/env python3
"""Writes the input-stage test models (tests/torch) into a folder:

    make_input_stage_models.py OUT_DIR

staged.pt     a small MLP whose @torch.jit.export ``prepare_batch`` augments each batch on the host:
              a random flip of the features, noise, a per-batch standardisation; input_stage with 0
              workers.
masked.pt     prepare_batch thresholds noisy images into a float mask, calls ``self.dilate`` on
              it (float maxima of shifted copies: math on 0/1 values in float32) and crops it;
              the input stage's profile must name the transform, its line and binary input.
no_method.pt  the workload names ``prepare``, which the model does not have;
one_output.pt ``prepare_batch`` returns only the input (a Tensor, not a tuple of two);
rand_like.pt  ``prepare_batch`` draws with torch.rand_like, which takes no generator.

The bad archives are written without the exporter's checks (save_archive), so that advisor's own
checks see them; the exporter must refuse each of them, and this script fails if it does not.
Runs with PyTorch 1.13 and 2.x.
"""

import os
import sys
from typing import Tuple

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import advisor_export  # noqa: E402

BATCH, DIM, CLASSES = 8, 6, 3


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(DIM, 16)
        self.fc2 = nn.Linear(16, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class Staged(Mlp):
    @torch.jit.export
    def prepare_batch(self, x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        flip = torch.rand([x.shape[0], 1]) < 0.5
        x = torch.where(flip, x.flip(1), x)
        x = x + 0.1 * torch.randn(x.shape)
        x = (x - x.mean(0, keepdim=True)) / (x.std(0, keepdim=True) + 1e-5)
        return x, y


class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(24 * 24, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.flatten(1))

    def dilate(self, mask: torch.Tensor) -> torch.Tensor:
        out = mask
        for dy in [-1, 0, 1]:
            for dx in [-1, 0, 1]:
                out = torch.maximum(out, torch.roll(mask, shifts=[dy, dx], dims=[2, 3]))
        return out

    @torch.jit.export
    def prepare_batch(self, x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        mask = (x + 0.1 * torch.randn(x.shape) > 0.5).float()
        m = self.dilate(mask)
        return m[:, :, 4:28, 4:28], y


class OneOutput(Mlp):
    @torch.jit.export
    def prepare_batch(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x * 2


class RandLike(Mlp):
    @torch.jit.export
    def prepare_batch(self, x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x + torch.rand_like(x), y


def workload(method="prepare_batch"):
    return advisor_export.make_workload(
        inputs=[{"shape": [BATCH, DIM], "dtype": "float32", "init": "randn"}],
        target={"shape": [BATCH], "dtype": "int64", "init": "randint", "high": CLASSES},
        loss="cross_entropy", optimizer={"name": "sgd", "lr": 0.1}, seed=5,
        input_stage={"method": method, "workers": 0})


def write_unchecked(model, path, method="prepare_batch"):
    """Saves the archive as is, then checks that the exporter refuses it with one line that names
    the archive and the field."""
    spec = workload(method)
    module = torch.jit.script(model)
    advisor_export.save_archive(module, path, spec)
    try:
        advisor_export.validate_step(module, spec, path)
    except ValueError as e:
        if not str(e).startswith(f"{path}: input_stage.method \"{method}\": "):
            sys.exit(f"advisor_export's message for {path} names the wrong field: {e}")
        return
    sys.exit(f"advisor_export accepted {path}")


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    spec = workload()
    advisor_export.export(Staged(), os.path.join(out, "staged.pt"), **{
        k: spec[k] for k in ("inputs", "target", "loss", "optimizer", "seed", "input_stage")})
    masked = advisor_export.make_workload(
        inputs=[{"shape": [BATCH, 1, 32, 32], "dtype": "float32", "init": "rand"}],
        target=spec["target"], loss="cross_entropy", optimizer={"name": "sgd", "lr": 0.1}, seed=5,
        input_stage={"method": "prepare_batch", "workers": 0})
    advisor_export.export(Masked(), os.path.join(out, "masked.pt"), **{
        k: masked[k] for k in ("inputs", "target", "loss", "optimizer", "seed", "input_stage")})
    write_unchecked(Mlp(), os.path.join(out, "no_method.pt"), method="prepare")
    write_unchecked(OneOutput(), os.path.join(out, "one_output.pt"))
    write_unchecked(RandLike(), os.path.join(out, "rand_like.pt"))


if __name__ == "__main__":
    main()
