#!/usr/bin/env python3
"""Writes the model archives of advisor's integration tests.

    make_models.py OUTDIR [NAME ...] [--measure]

For each model, OUTDIR/<name>.pt and OUTDIR/<name>.expected.json. Models with a planted hot spot
expect {"path", "phase", "op"}: the module instance and the op that ``advisor bisect`` must name.
Bad inputs expect {"error": KIND, ...}: the error advisor must report (clearly, without crashing).
tests/models/README.md lists them. NAMEs pick a subset (default: all). --measure prints each
planted model's calibration (scripts/advisor_measure.py), as recorded in the README.

Small CPU workloads (about 0.05-0.3 s a training step on two cores). Runs with PyTorch 1.13 and
2.x; on the project's Debian machines use /usr/bin/python3.
"""

import argparse
import json
import os
import sys
import zipfile
from typing import Dict, Tuple

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import advisor_export  # noqa: E402  (scripts/ is on the path only from here on)
import advisor_measure  # noqa: E402


def float_input(*shape):
    return {"shape": list(shape), "dtype": "float32", "init": "randn"}


def class_target(batch, classes):
    return {"shape": [batch], "dtype": "int64", "init": "randint", "high": classes}


SGD = {"name": "sgd", "lr": 0.01, "momentum": 0.9}


# --------------------------------------------------------------------------------------------------
# repeated_type: layers.2 of five instances of one TorchScript type is slow, driven by an attribute.


class Layer(nn.Module):
    """Residual stack of ``repeat`` 1-D convolutions (kernel 3), each followed by ReLU.

    ``repeat`` is a plain int attribute, so every Layer instance has the same TorchScript type and
    one compiled graph; only the value differs between instances.
    """

    def __init__(self, channels, repeat):
        super().__init__()
        self.repeat = repeat
        self.weight = nn.Parameter(torch.randn(channels, channels, 3) * channels ** -0.5 / 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x
        for _ in range(self.repeat):
            h = torch.relu(F.conv1d(h, self.weight, padding=1))
        return x + h


class RepeatedType(nn.Module):
    def __init__(self, channels=64, classes=10, planted=2, repeat=8):
        super().__init__()
        self.embed = nn.Conv1d(8, channels, kernel_size=1)
        self.layers = nn.Sequential(*[Layer(channels, repeat if i == planted else 1)
                                      for i in range(5)])
        self.head = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.layers(self.embed(x)).mean(-1))


def repeated_type():
    batch = 32
    return (RepeatedType(),
            dict(inputs=[float_input(batch, 8, 256)], target=class_target(batch, 10),
                 loss="cross_entropy", optimizer=SGD,
                 description="five Layer instances of one TorchScript type; layers.2 runs its "
                             "convolution 8 times, the others once"),
            {"path": "layers.2", "phase": "backward", "op": "ConvolutionBackward0"})


# --------------------------------------------------------------------------------------------------
# deep: encoder.stages.stage2.block.conv, through a ModuleDict, has an 11x11 kernel, the others 3x3.


class ConvBlock(nn.Module):
    def __init__(self, channels, kernel):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel, padding=kernel // 2, bias=False)
        self.norm = nn.BatchNorm2d(channels)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.norm(self.conv(x)))


class Stage(nn.Module):
    def __init__(self, channels, kernel):
        super().__init__()
        self.block = ConvBlock(channels, kernel)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x)


class Encoder(nn.Module):
    def __init__(self, channels, kernels):
        super().__init__()
        self.stages = nn.ModuleDict({f"stage{i + 1}": Stage(channels, k)
                                     for i, k in enumerate(kernels)})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for stage in self.stages.values():
            x = stage(x)
        return x


class Deep(nn.Module):
    def __init__(self, channels=32, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, kernel_size=3, padding=1)
        self.encoder = Encoder(channels, kernels=(3, 11, 3))
        self.head = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.stem(x)).mean((2, 3)))


def deep():
    batch = 8
    return (Deep(),
            dict(inputs=[float_input(batch, 3, 32, 32)], target=class_target(batch, 10),
                 loss="cross_entropy", optimizer=SGD,
                 description="conv stages in a ModuleDict; stage2's convolution is 11x11, "
                             "the others 3x3"),
            {"path": "encoder.stages.stage2.block.conv", "phase": "backward",
             "op": "ConvolutionBackward0"})


# --------------------------------------------------------------------------------------------------
# tuple_outputs: modules taking two tensors and returning tuples; cells.2.attend sorts in forward.


def sparsemax(z: torch.Tensor) -> torch.Tensor:
    """Sparsemax over the last dimension (Martins & Astudillo, 2016): sorts every row."""
    sorted_z, _ = torch.sort(z, dim=-1, descending=True)
    ranks = torch.arange(1, z.size(-1) + 1, device=z.device, dtype=z.dtype)
    cumulative = sorted_z.cumsum(-1) - 1.0
    support = (sorted_z * ranks > cumulative).sum(-1, keepdim=True)
    tau = cumulative.gather(-1, support - 1) / support.to(z.dtype)
    return torch.clamp(z - tau, min=0.0)


class Attend(nn.Module):
    """Attention of x over a context; returns (mixed context, attention probabilities).

    ``sparse`` (a plain bool attribute, so all instances share one TorchScript type) selects
    sparsemax probabilities, which sort every score row, instead of softmax.
    """

    def __init__(self, dim, sparse):
        super().__init__()
        self.sparse = sparse
        self.scale = dim ** -0.5
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        scores = self.q(x) @ self.k(context).transpose(1, 2) * self.scale
        if self.sparse:
            probs = sparsemax(scores)
        else:
            probs = scores.softmax(-1)
        return probs @ context, probs


class Cell(nn.Module):
    """Gated update of x from a context; returns (hidden, gate)."""

    def __init__(self, dim, sparse):
        super().__init__()
        self.attend = Attend(dim, sparse)
        self.gate = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        mixed, _ = self.attend(x, context)
        gate = torch.sigmoid(self.gate(torch.cat([x, mixed], dim=-1)))
        return x + gate * mixed, gate


class TupleOutputs(nn.Module):
    def __init__(self, features=16, dim=16, classes=10, planted=2):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.embed_context = nn.Linear(features, dim)
        self.cells = nn.ModuleList([Cell(dim, sparse=i == planted) for i in range(4)])
        self.head = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        h = self.embed(x)
        c = self.embed_context(context)
        gate = torch.zeros_like(h)
        for cell in self.cells:
            h, gate = cell(h, c)
        return self.head(h.mean(1)), gate.mean()


def tuple_outputs():
    batch = 8
    return (TupleOutputs(),
            dict(inputs=[float_input(batch, 64, 16), float_input(batch, 1024, 16)],
                 target=class_target(batch, 10), loss="cross_entropy", optimizer=SGD,
                 description="cells take (x, context) and return (hidden, gate); the model "
                             "returns (logits, mean gate); cells.2.attend uses sparsemax, which "
                             "sorts each row of 1024 scores"),
            {"path": "cells.2.attend", "phase": "forward", "op": "aten::sort"})


PLANTED = {"repeated_type": repeated_type, "deep": deep, "tuple_outputs": tuple_outputs}


# --------------------------------------------------------------------------------------------------
# Bad inputs


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 16))
        self.head = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.encoder(x)))


class DictOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {"logits": self.body(x)}


class Hang(nn.Module):
    """A forward that never returns: a loop whose condition stays true."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        spins = 0
        while spins >= 0:
            spins += 1
        return self.body(x)


class NanLoss(nn.Module):
    """Trains, but every prediction is NaN, and so is the loss."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x) * float("nan")


class RaisesOutOfMemory(nn.Module):
    """Raises the error the CUDA caching allocator raises, with its message: on a CPU nothing runs
    out of CUDA memory, and this is the only way to get one."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.numel() > 0:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return x


class OutOfMemory(nn.Module):
    """A workload whose second module runs out of memory in its forward."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 4)
        self.big = RaisesOutOfMemory()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.big(self.body(x))


SMALL_WORKLOAD = {"inputs": [float_input(4, 3, 8, 8)], "target": class_target(4, 4),
                  "loss": "cross_entropy", "optimizer": SGD}


def save_raw(module, path, workload_text=None):
    """torch.jit.save with the workload file's text as given (None: no workload file)."""
    files = {} if workload_text is None else {advisor_export.WORKLOAD_FILE: workload_text}
    torch.jit.save(module, path, _extra_files=files)


def write_bad_inputs(outdir, wanted):
    """Writes the bad-input archives that ``wanted`` names; returns {name: expected}."""
    small = torch.jit.script(Small().train())
    good = json.dumps(SMALL_WORKLOAD)
    missing = {k: v for k, v in SMALL_WORKLOAD.items() if k != "inputs"}
    bad_shape = dict(SMALL_WORKLOAD, inputs=[float_input(4, 3, 10, 10)])
    cases = {
        "not_torchscript": (lambda p: _write_bytes(p, bytes(range(256)) * 16),
                            {"error": "not_torchscript"}),
        "truncated": (lambda p: _write_truncated(p, small, good), {"error": "not_torchscript"}),
        "no_workload": (lambda p: save_raw(small, p), {"error": "no_workload"}),
        "bad_json": (lambda p: save_raw(small, p, '{"inputs": [{"shape": [4, 3, 8, 8],'),
                     {"error": "bad_json"}),
        "missing_fields": (lambda p: save_raw(small, p, json.dumps(missing)),
                           {"error": "missing_field", "field": "inputs"}),
        "bad_shape": (lambda p: save_raw(small, p, json.dumps(bad_shape)),
                      {"error": "model_raised", "raises_in": "encoder.1"}),
        "dict_output": (lambda p: save_raw(torch.jit.script(DictOutput().train()), p,
                                           json.dumps(dict(SMALL_WORKLOAD,
                                                           inputs=[float_input(4, 8)]))),
                        {"error": "unsupported_output"}),
        "zip_bomb": (lambda p: _write_zip_bomb(p, small), {"error": "entry_too_large"}),
        # Saved without the exporter's one-step check, which refuses a loss that is not finite.
        "nan_loss": (lambda p: save_raw(torch.jit.script(NanLoss().train()), p,
                                        json.dumps(dict(SMALL_WORKLOAD,
                                                        inputs=[float_input(4, 8)]))),
                     {"data_quality": "non_finite_loss"}),
        # Saved without the exporter's one-step check, which would fail as the workload does.
        "out_of_memory": (lambda p: save_raw(torch.jit.script(OutOfMemory().train()), p,
                                             json.dumps(dict(SMALL_WORKLOAD,
                                                             inputs=[float_input(4, 8)]))),
                          {"error": "out_of_memory", "raises_in": "big"}),
        # Saved without the exporter's one-step check, which would never return either.
        "hangs_in_forward": (lambda p: save_raw(torch.jit.script(Hang().train()), p,
                                                json.dumps(dict(SMALL_WORKLOAD,
                                                                inputs=[float_input(4, 8)]))),
                             {"error": "step_timeout"}),
    }
    expected = {}
    for name, (write, answer) in cases.items():
        if name in wanted:
            write(os.path.join(outdir, name + ".pt"))
            expected[name] = answer
    return expected


def _write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _write_zip_bomb(path, module):
    """A valid archive whose workload.json, deflated to some kilobytes, expands to 64 MiB (a
    description of spaces): advisor must refuse it from the zip directory, before inflating it."""
    plain = path + ".plain"
    save_raw(module, plain, json.dumps(SMALL_WORKLOAD))
    bomb = json.dumps(dict(SMALL_WORKLOAD, description=" " * (64 << 20)))
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            if info.filename.endswith("/extra/" + advisor_export.WORKLOAD_FILE):
                target.writestr(info.filename, bomb, compress_type=zipfile.ZIP_DEFLATED,
                                compresslevel=9)
            else:
                target.writestr(info, source.read(info))
    os.remove(plain)


def _write_truncated(path, module, workload_text):
    save_raw(module, path, workload_text)
    with open(path, "rb") as f:
        data = f.read()
    _write_bytes(path, data[:len(data) // 2])


BAD_INPUTS = ("not_torchscript", "truncated", "no_workload", "bad_json", "missing_fields",
              "bad_shape", "dict_output", "zip_bomb", "nan_loss", "hangs_in_forward",
              "out_of_memory")


# --------------------------------------------------------------------------------------------------


def write_expected(outdir, name, expected):
    with open(os.path.join(outdir, name + ".expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")


def check_shared_type(scripted, paths):
    """Asserts that TorchScript compiled the modules at ``paths`` to one type (one graph)."""
    types = {advisor_measure.submodule(scripted, p)._c._type().qualified_name() for p in paths}
    if len(types) != 1:
        raise AssertionError(f"expected one TorchScript type for {paths}, got {sorted(types)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="models to write (default: all): "
                             + ", ".join(list(PLANTED) + list(BAD_INPUTS)))
    parser.add_argument("--measure", action="store_true",
                        help="print step time, per-level module timings and top ops")
    args = parser.parse_args(argv)
    wanted = args.names or list(PLANTED) + list(BAD_INPUTS)
    unknown = sorted(set(wanted) - set(PLANTED) - set(BAD_INPUTS))
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    os.makedirs(args.outdir, exist_ok=True)

    for name in [n for n in PLANTED if n in wanted]:
        torch.manual_seed(0)
        model, spec, expected = PLANTED[name]()
        path = os.path.join(args.outdir, name + ".pt")
        scripted = advisor_export.export(model, path, source_model="tests/models/make_models.py",
                                         **spec)
        if name == "repeated_type":
            check_shared_type(scripted, [f"layers.{i}" for i in range(5)])
        if name == "tuple_outputs":
            check_shared_type(scripted, [f"cells.{i}.attend" for i in range(4)])
        write_expected(args.outdir, name, expected)
        print(f"wrote {path}: {expected}")
        if args.measure:
            advisor_measure.measure(model, scripted, advisor_export.make_workload(**spec),
                                    expected["path"])

    for name, expected in write_bad_inputs(args.outdir, wanted).items():
        write_expected(args.outdir, name, expected)
        print(f"wrote {os.path.join(args.outdir, name + '.pt')}: {expected}")


if __name__ == "__main__":
    main()
