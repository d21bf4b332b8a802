#!/usr/bin/env python3
"""Records torch.profiler traces for ``advisor analyze``: its test data and its checks on a GPU.

    record_traces.py OUTDIR [--cpu] [--cases CASE ...] [--steps N] [--skip-ranks]

Each zoo case (scripts/zoo/cases/) is trained the way a user's script trains it, a DataLoader
feeding the model, the loss, backward and a torch.optim step, under torch.profiler with
prof.step() after every step, in these variants:

    labels  every submodule's forward in a record_function range named by its path in the model,
            the path advisor bisect names (gnn.conv2.aggregate); record_shapes and
            profile_memory on
    plain   torch.profiler's defaults: no module ranges, shapes or memory
    stack   with_stack=True: the Python tracer's nn.Module events name the modules (Linear_0)

Then a two-rank DistributedDataParallel run (torch.multiprocessing, one process per rank) where
rank 1 runs extra matrix multiplies inside one module, blocks.2.mixer: the planted straggler.

Default (a GPU machine, PyTorch 2.x with CUDA): the cases at their GPU size with CPU and CUDA
activity, every case in the labels variant and two also plain and with stack, and the two ranks on
NCCL, one GPU each. --cpu: the CPU sizes, CPU activity only, the labels variant, and the two ranks
on gloo; with PyTorch built without Kineto (Debian's 1.13) the traces are in the legacy exporter's
format (no sequence numbers, module events or memory records).

Writes OUTDIR/single/CASE-VARIANT.json.gz, OUTDIR/ranks/straggler/rank{0,1}.json.gz and
OUTDIR/manifest.json (what each trace is, and the finding advisor bisect expects for its case).
Every trace stays small (a few MB at most): few steps, the zoo's sizes.
"""

import argparse
import contextlib
import gzip
import importlib
import json
import os
import shutil
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "zoo"))
import advisor_export  # noqa: E402  (scripts/ is on the path only from here on)
import advisor_input_stage  # noqa: E402

# Cases whose planted problem a trace shows (the others need what a trace does not record, such
# as deterministic algorithms, or a model.pt).
GPU_CASES = ["host_tensor", "pageable_copy", "moe_sync", "handwritten_attention", "fp32_mlp",
             "cnn_fp32", "audio_conv1d", "tiny_params_adamw", "augment_stall", "ragged_shapes",
             "small_batch", "launch_bound", "sdpa_backend", "clean_mixer"]
CPU_CASES = ["handwritten_attention", "tiny_params_adamw", "augment_stall", "clean_mixer"]
# Also recorded plain and with stack on a GPU.
VARIANT_CASES = ["fp32_mlp", "handwritten_attention"]

WAIT, WARMUP = 1, 2  # torch.profiler's schedule before the recorded steps


class ModuleLabels:
    """record_function ranges around each submodule's forward, named by its path in the model."""

    def __init__(self, model):
        self.handles = []
        self.open = []
        for path, module in model.named_modules():
            if path:
                self.handles.append(module.register_forward_pre_hook(self._enter(path)))
                self.handles.append(module.register_forward_hook(self._exit))

    def _enter(self, name):
        def hook(module, args):
            scope = record_function(name)
            scope.__enter__()
            self.open.append(scope)
        return hook

    def _exit(self, module, args, output):
        self.open.pop().__exit__(None, None, None)

    def remove(self):
        for handle in self.handles:
            handle.remove()


class Batches(torch.utils.data.IterableDataset):
    """The workload's batch every step, prepared by its input stage where it has one, so that
    the loop waits in a DataLoader as a user's loop does."""

    def __init__(self, model, workload, inputs, target, steps):
        self.model, self.workload, self.inputs, self.target = model, workload, inputs, target
        self.steps = steps

    def __iter__(self):
        for _ in range(self.steps):
            if "input_stage" in self.workload:
                inputs, target = advisor_input_stage.prepare_batch(
                    self.model, self.workload, self.inputs, self.target)
            else:
                inputs, target = self.inputs, self.target
            yield inputs, target


def variant_options(variant):
    """torch.profiler's keyword arguments for a variant, and whether module ranges are added."""
    if variant == "labels":
        return {"record_shapes": True, "profile_memory": True}, True
    if variant == "stack":
        return {"with_stack": True}, False
    return {}, False


def save_trace(prof, path):
    """The profile as gzip-compressed Chrome trace JSON at `path`."""
    with tempfile.TemporaryDirectory() as scratch:
        raw = os.path.join(scratch, "trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as source, gzip.open(path, "wb", compresslevel=9) as target:
            shutil.copyfileobj(source, target)


def train_profiled(model, workload, device, steps, variant, path, distributed=None):
    """Trains `model` with `workload` for the profiler's schedule and writes its trace."""
    inputs, target = advisor_export.make_batch(workload)
    optimizer = advisor_export.make_optimizer(model, workload["optimizer"])
    total = WAIT + WARMUP + steps
    loader = torch.utils.data.DataLoader(Batches(model, workload, inputs, target, total),
                                         batch_size=None, num_workers=0)
    options, labelled = variant_options(variant)
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    labels = ModuleLabels(model) if labelled else None
    autocast = workload.get("autocast")
    train = distributed or model
    with advisor_export.deterministic_mode(workload["deterministic"]), profile(
            activities=activities, schedule=schedule(wait=WAIT, warmup=WARMUP, active=steps),
            on_trace_ready=lambda prof: save_trace(prof, path), **options) as prof:
        for batch_inputs, batch_target in loader:
            optimizer.zero_grad(set_to_none=True)
            region = (torch.autocast("cuda", dtype=advisor_export.DTYPES[autocast]) if autocast
                      else contextlib.nullcontext())
            with region:
                output = train(*[t.to(device) for t in batch_inputs])
                loss = advisor_export.compute_loss(workload["loss"],
                                                   advisor_export.prediction_of(output),
                                                   batch_target.to(device))
            loss.backward()
            optimizer.step()
            prof.step()
    if labels:
        labels.remove()


def record_case(name, size, device, steps, variant, outdir):
    torch.manual_seed(0)
    case = importlib.import_module(f"cases.{name}")
    model, spec = case.build(size)
    workload = advisor_export.make_workload(device=str(device), **spec)
    model = model.to(device).train()
    path = os.path.join(outdir, "single", f"{name}-{variant}.json.gz")
    train_profiled(model, workload, device, steps, variant, path)
    expected = json.load(open(os.path.join(HERE, "zoo", "cases", f"{name}.expected.json")))
    return {"trace": os.path.relpath(path, outdir), "case": name, "variant": variant,
            "device": str(device), "expected": expected.get(size, {})}


# ------------------------------------------------------------------------------------------------
# Two ranks, one of them slow in one module


class Mixer(nn.Module):
    """A linear layer; on the slow rank it also runs `extra` matrix multiplies it throws away."""

    def __init__(self, width, extra):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.register_buffer("weight", torch.randn(width, width) / width ** 0.5)
        self.extra = extra

    def forward(self, x):
        y = torch.relu(self.linear(x))
        with torch.no_grad():
            for _ in range(self.extra):
                torch.mm(y, self.weight)
        return y


class Block(nn.Module):
    def __init__(self, width, extra):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mixer = Mixer(width, extra)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class Net(nn.Module):
    def __init__(self, width, depth, slow_block, extra):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width, extra if i == slow_block else 0)
                                    for i in range(depth))
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


STRAGGLER = {"rank": 1, "path": "blocks.2.mixer"}


def rank_main(rank, world, port, cpu, steps, outdir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo" if cpu else "nccl", rank=rank, world_size=world)
    device = torch.device("cpu") if cpu else torch.device("cuda", rank)
    if not cpu:
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    # On two H200s 24 extra matmuls (2.1 ms a step) made rank 1 late at the first all-reduce by
    # about 1 ms but rank 0 late at DDP's buffer broadcast by up to 0.8, so no rank stood out; 96
    # should outweigh the broadcast (not yet recorded).
    width, batch, extra = (256, 64, 12) if cpu else (2048, 512, 96)
    model = Net(width, 4, slow_block=2, extra=extra if rank == STRAGGLER["rank"] else 0)
    model = model.to(device).train()
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=None if cpu else [rank])
    workload = advisor_export.make_workload(
        inputs=[{"shape": [batch, width], "dtype": "float32", "init": "randn"}],
        target={"shape": [batch], "dtype": "int64", "init": "randint", "high": 10},
        loss="cross_entropy", optimizer={"name": "sgd", "lr": 0.01, "momentum": 0.9},
        device=device.type, seed=rank)  # the rank's GPU is the current device (set_device)
    path = os.path.join(outdir, "ranks", "straggler", f"rank{rank}.json.gz")
    train_profiled(model, workload, device, steps, "labels", path, distributed=ddp)
    dist.barrier()
    dist.destroy_process_group()


def record_ranks(cpu, steps, outdir):
    os.makedirs(os.path.join(outdir, "ranks", "straggler"), exist_ok=True)
    port = 29500 + os.getpid() % 1000
    mp.spawn(rank_main, args=(2, port, cpu, steps, outdir), nprocs=2, join=True)
    return {"trace": "ranks/straggler", "case": "straggler", "variant": "labels",
            "device": "cpu" if cpu else "cuda", "world_size": 2,
            "expected": {"rule": "straggler-rank", "straggler_rank": STRAGGLER["rank"],
                         "finding_path": STRAGGLER["path"]}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--cpu", action="store_true", help="CPU sizes and activity; gloo ranks")
    parser.add_argument("--cases", nargs="*", help="zoo cases (default: those a trace can judge)")
    parser.add_argument("--steps", type=int, default=4, help="profiled steps per trace")
    parser.add_argument("--skip-ranks", action="store_true", help="no two-rank run")
    args = parser.parse_args()
    if not args.cpu and not torch.cuda.is_available():
        raise SystemExit("record_traces.py: no CUDA device; pass --cpu for CPU traces")
    os.makedirs(os.path.join(args.outdir, "single"), exist_ok=True)
    size = "cpu" if args.cpu else "cuda"
    device = torch.device(size)
    cases = args.cases if args.cases is not None else (CPU_CASES if args.cpu else GPU_CASES)
    manifest = {"torch": torch.__version__, "kineto": torch.autograd.kineto_available(),
                "device_name": torch.cuda.get_device_name(0) if not args.cpu else "cpu",
                "recorded": time.strftime("%Y-%m-%d"), "traces": []}
    for name in cases:
        variants = ["labels"] + (["plain", "stack"] if not args.cpu and name in VARIANT_CASES else [])
        for variant in variants:
            start = time.monotonic()
            manifest["traces"].append(record_case(name, size, device, args.steps, variant,
                                                  args.outdir))
            print(f"recorded {name}-{variant} in {time.monotonic() - start:.1f} s", flush=True)
            if device.type == "cuda":
                torch.cuda.empty_cache()
    if not args.skip_ranks:
        if not args.cpu and torch.cuda.device_count() < 2:
            print("record_traces.py: fewer than 2 GPUs, no two-rank run", file=sys.stderr)
        else:
            manifest["traces"].append(record_ranks(args.cpu, args.steps, args.outdir))
            print("recorded the two-rank run", flush=True)
    with open(os.path.join(args.outdir, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=2)
        out.write("\n")


if __name__ == "__main__":
    main()
