#!/usr/bin/env python3
"""The seed script's fixes by hand (issue #28's bar): bench/scripts/vit_train.py's model,
DataLoader and training step built as the script builds them, and each fix applied as its recipe
has advisor's probe apply it (docs/recipes.md, probes/python/site/advisor_probe/knobs.py), timed
in one process so that `advisor bisect --autotest` of the script can be judged against it in the
same call (bench/seed_judge.py).

    seed_by_hand.py [--fixes ID[+ID...],...] [--cycles 4] [--settle N] [--steps 20]
                    [--device cuda] [--model vit_base_patch16_224] [--batch 128] [--workers 6]
                    [--out FILE] [--loader-trace DIR]
    seed_by_hand.py --long-runs [--epochs 3] [--warmup-epochs 1] [--fixes ...] [...]

A fix is a recipe id or several joined by '+' (advisor's name of a combination): bf16-autocast
(the forward under bf16 autocast, the loss outside it), tf32-matmul (TF32 for matmuls and cuDNN),
deterministic-off (the script turns deterministic algorithms on), torch-compile (the model's
forward through torch.compile, the module's hooks eager). Each cycle times the baseline and every
fix in a block of its own: --settle steps after the switch left out, then --steps steps between
two CUDA events (the wall of the stream, the DataLoader's waits included, as the script's steps
have them); the cycles rotate the blocks' order so that a drift falls on every fix alike, and the
first cycle, where torch.compile compiles for each setting it meets, is left out. --settle is by
default the batches the DataLoader holds ready (--workers x its prefetch_factor, 2) plus 3: a fix
faster than the loader's workers finds that queue full after the slower block before it, and
until it has drained, its steps take no batch's wait, which a long run of the fix waits for
(docs/recipes.md, "Measured inside the running script"). A fix's speedup is the geometric mean
over the cycles of the baseline block's time per step over the fix's, of the same cycle;
loader_wait_ms is the host's wait for the next batch per step, the sign of a fix that the
DataLoader holds back, each block's on stderr as it ends and in loader_wait_per_cycle. Prints one
JSON line (and writes it to --out FILE):

    {"device": ..., "baseline_ms": 171.2, "cycles": 3, "settle": 15,
     "fixes": {"bf16-autocast": {"step_ms": 43.9, "speedup": 3.90, "per_cycle": [...],
                                 "loader_wait_ms": 0.4, "loader_wait_per_cycle": [...]}, ...}}

With --long-runs each setting instead trains in a process of its own, as a user times a script
with and without a fix: --warmup-epochs whole epochs left out (torch.compile compiles, the workers
start), then --epochs whole epochs timed back to back, each epoch's boundary (its fresh
iterator's first batch, which waits for the workers) counted once, as a long run counts it. A
fix's speedup is the baseline's mean step over the fix's; each run's epochs, its first batches'
waits and its other batches' waits per step are in the line ("method": "long runs").

--device cpu with a small --model (vit_tiny_patch16_224) and --batch runs the same code where no
GPU is (timed by the host's clock); TF32 is a CUDA switch and changes nothing there.
"""

import argparse
import contextlib
import json
import math
import os
import subprocess
import sys
import time

import timm
import torch
from torch.utils.data import DataLoader

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts"))
import loader_trace  # noqa: E402
from vit_train import RandomImages  # noqa: E402  (the script's own Dataset)

KNOWN = ("bf16-autocast", "tf32-matmul", "deterministic-off", "torch-compile")


class Setting:
    """One fix's knobs, switched on for its block and back to the script's own after it."""

    # The script leaves cuDNN's TF32 at torch's default (on); the recipe sets both switches.
    script_cudnn_tf32 = torch.backends.cudnn.allow_tf32

    def __init__(self, name, device):
        self.name = name
        self.recipes = set(name.split("+")) if name != "baseline" else set()
        unknown = self.recipes - set(KNOWN)
        if unknown:
            raise SystemExit("seed_by_hand.py: no hand-made fix for %s (known: %s)"
                             % (", ".join(sorted(unknown)), ", ".join(KNOWN)))
        self.device = device

    def __enter__(self):
        tf32 = "tf32-matmul" in self.recipes
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32 or self.script_cudnn_tf32
        torch.use_deterministic_algorithms("deterministic-off" not in self.recipes)
        return self

    def __exit__(self, *_):
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = self.script_cudnn_tf32
        torch.use_deterministic_algorithms(True)

    def autocast(self):
        if "bf16-autocast" not in self.recipes:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=torch.bfloat16)


class Clock:
    """The time of a run of steps: CUDA events on the stream (its idle waits for the loader
    included), or the host's clock on the CPU."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def start(self):
        if self.cuda:
            self._start = torch.cuda.Event(enable_timing=True)
            self._start.record()
        else:
            self._start = time.perf_counter()

    def stop_ms(self):
        if self.cuda:
            end = torch.cuda.Event(enable_timing=True)
            end.record()
            end.synchronize()
            return self._start.elapsed_time(end)
        return (time.perf_counter() - self._start) * 1e3


class Marks:
    """Points in a run of steps, the intervals between them read once at the end: CUDA events
    on the stream, or the host's clock on the CPU."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"
        self._marks = []

    def mark(self):
        if self.cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            self._marks.append(event)
        else:
            self._marks.append(time.perf_counter())

    def intervals_ms(self):
        if self.cuda:
            self._marks[-1].synchronize()
            return [a.elapsed_time(b) for a, b in zip(self._marks, self._marks[1:])]
        return [(b - a) * 1e3 for a, b in zip(self._marks, self._marks[1:])]


def mean(values):
    return sum(values) / len(values)


def batches(loader):
    while True:
        yield from loader


def build(args, device, compile_needed):
    """vit_train.py's model, optimizer, loss and loader, as it builds them; the model's forward
    compiled beside it where a setting asks for torch.compile."""
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    model = timm.create_model(args.model, patch_drop_rate=0.5).to(device)
    compiled = torch.compile(model.forward) if compile_needed else None
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = DataLoader(RandomImages(args.batch * 64, 1000), batch_size=args.batch, shuffle=True,
                        num_workers=args.workers, pin_memory=device.type == "cuda",
                        persistent_workers=args.workers > 0, drop_last=True)

    def step(setting, images, labels):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        forward = compiled if "torch-compile" in setting.recipes else model
        with setting.autocast():
            output = forward(images)
        loss = loss_fn(output, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return loader, step


def settings_of(fixes, device):
    settings = [Setting("baseline", device)]
    for name in (f for f in fixes.split(",") if f):
        # A combination once, whatever the order of its members' names.
        if all(set(name.split("+")) != s.recipes for s in settings):
            settings.append(Setting(name, device))
    return settings


def write_line(result, out):
    line = json.dumps(result)
    print(line)
    if out:
        with open(out, "w") as out_file:
            out_file.write(line + "\n")


def alternating_blocks(args, device):
    """Every setting in one process, in blocks of --steps steps that the cycles rotate."""
    settings = settings_of(args.fixes, device)
    loader, train_step = build(args, device, any("torch-compile" in s.recipes for s in settings))
    feed = batches(loader)
    clock = Clock(device)
    queue = args.workers * (loader.prefetch_factor or 2) if args.workers > 0 else 0
    settle = args.settle if args.settle is not None else queue + 3

    waited = [0.0]  # seconds the host spent in next(feed), the loader not keeping up

    def step(setting):
        asked = time.perf_counter()
        images, labels = next(feed)
        waited[0] += time.perf_counter() - asked
        train_step(setting, images, labels)

    per_step = {s.name: [] for s in settings}  # ms per step, one a cycle, the first left out
    wait_per_step = {s.name: [] for s in settings}  # ms per step the host waited for a batch
    for cycle in range(args.cycles):
        shift = cycle % len(settings)
        for setting in settings[shift:] + settings[:shift]:
            with setting:
                for _ in range(settle):
                    step(setting)
                clock.start()
                waited[0] = 0.0
                for _ in range(args.steps):
                    step(setting)
                ms = clock.stop_ms() / args.steps
            wait_ms = waited[0] * 1e3 / args.steps
            print("seed_by_hand.py: cycle %d, %s: %.1f ms a step, %.1f ms of it waiting for the "
                  "loader" % (cycle + 1, setting.name, ms, wait_ms), file=sys.stderr, flush=True)
            if cycle > 0:
                per_step[setting.name].append(ms)
                wait_per_step[setting.name].append(wait_ms)
        print("seed_by_hand.py: cycle %d of %d done" % (cycle + 1, args.cycles), file=sys.stderr,
              flush=True)

    baseline = per_step["baseline"]
    fixes = {}
    for setting in settings[1:]:
        ratios = [b / f for b, f in zip(baseline, per_step[setting.name])]
        fixes[setting.name] = {
            "step_ms": sum(per_step[setting.name]) / len(ratios),
            "speedup": math.exp(sum(math.log(r) for r in ratios) / len(ratios)),
            "per_cycle": ratios, "loader_wait_ms": mean(wait_per_step[setting.name]),
            "loader_wait_per_cycle": wait_per_step[setting.name]}
    write_line({"device": str(device), "model": args.model, "batch": args.batch,
                "method": "blocks", "baseline_ms": sum(baseline) / len(baseline),
                "cycles": len(baseline), "settle": settle,
                "baseline_loader_wait_ms": mean(wait_per_step["baseline"]),
                "baseline_loader_wait_per_cycle": wait_per_step["baseline"],
                "fixes": fixes}, args.out)


def one_long_run(args, device):
    """One setting trained as a user's run of it: --warmup-epochs left out (compiles, the
    workers' start), then --epochs whole epochs or more, until --min-seconds, timed back to back, each from the end of the
    epoch before to its own last step, so that its boundary's wait (a fresh iterator's first
    batch) is counted once an epoch, as a long run counts it. On CUDA the epochs' ends are events
    on the stream, read once after the last: no synchronisation between epochs, where the host's
    lead over the GPU would otherwise be lost at each boundary."""
    setting = Setting(args.one, device)
    loader, train_step = build(args, device, "torch-compile" in setting.recipes)
    ends = Marks(device)
    with setting:
        for _ in range(args.warmup_epochs):
            for images, labels in loader:
                train_step(setting, images, labels)
        ends.mark()
        first_wait_ms, wait_ms, steps = [], [], 0
        began, epochs = time.monotonic(), 0
        # At least --epochs, and on until --min-seconds of them have run (by the host's clock): a
        # fast setting's epochs are short and wander most where the host drives its steps.
        while epochs < args.epochs or time.monotonic() - began < args.min_seconds:
            epochs += 1
            waited, first, asked, steps = 0.0, None, time.perf_counter(), 0
            for images, labels in loader:
                got = time.perf_counter()
                if first is None:
                    first = got - asked
                else:
                    waited += got - asked
                train_step(setting, images, labels)
                steps += 1
                asked = time.perf_counter()
            ends.mark()
            first_wait_ms.append(first * 1e3)
            wait_ms.append(waited * 1e3 / max(1, steps - 1))
        epoch_ms = ends.intervals_ms()
    for ms, first, wait in zip(epoch_ms, first_wait_ms, wait_ms):
        print("seed_by_hand.py: %s, epoch of %d steps: %.1f ms a step, its first batch waited "
              "%.1f ms, the others %.2f ms a step" % (setting.name, steps, ms / steps, first, wait),
              file=sys.stderr, flush=True)
    write_line({"setting": setting.name, "steps_per_epoch": steps,
                "step_ms_per_epoch": [ms / steps for ms in epoch_ms],
                "first_batch_wait_ms": first_wait_ms, "loader_wait_ms": wait_ms}, args.out)


def long_runs(args, device):
    """Every setting in a process of its own (one_long_run), one after the other, in
    --processes rounds of all of them: what a user timing the script with and without a fix
    gets. A setting's step is the mean over its processes of each one's mean step over its
    timed epochs (its epochs' figures concatenated in process order); a fix's speedup is the
    baseline's step over the fix's, and `speedup_range` the lowest and highest of a round's
    baseline process over the same round's fix process: how far one pair of runs by hand
    wanders."""
    runs = {}
    for _ in range(args.processes):
        for setting in settings_of(args.fixes, device):
            command = [sys.executable, os.path.abspath(__file__), "--one", setting.name,
                       "--epochs", str(args.epochs), "--min-seconds", str(args.min_seconds),
                       "--warmup-epochs", str(args.warmup_epochs),
                       "--device", args.device, "--model", args.model, "--batch",
                       str(args.batch), "--workers", str(args.workers)]
            if args.loader_trace:
                command += ["--loader-trace", args.loader_trace]
            started = time.monotonic()
            done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
            run = json.loads(done.stdout.strip().splitlines()[-1])
            run["process_s"] = time.monotonic() - started
            runs.setdefault(setting.name, []).append(run)

    def joined(processes):
        setting = {"setting": processes[0]["setting"],
                   "steps_per_epoch": processes[0]["steps_per_epoch"],
                   "process_step_ms": [mean(p["step_ms_per_epoch"]) for p in processes],
                   "process_s": sum(p["process_s"] for p in processes)}
        for field in ("step_ms_per_epoch", "first_batch_wait_ms", "loader_wait_ms"):
            setting[field] = [value for p in processes for value in p[field]]
        setting["step_ms"] = mean(setting["process_step_ms"])
        return setting

    baseline = joined(runs.pop("baseline"))
    fixes = {}
    for name, processes in runs.items():
        fix = joined(processes)
        pairs = [b / f for b, f in zip(baseline["process_step_ms"], fix["process_step_ms"])]
        fixes[name] = dict(fix, speedup=baseline["step_ms"] / fix["step_ms"],
                           speedup_range=[min(pairs), max(pairs)])
    write_line({"device": str(device), "model": args.model, "batch": args.batch,
                "method": "long runs", "baseline_ms": baseline["step_ms"],
                "epochs": args.epochs, "processes": args.processes, "baseline": baseline,
                "fixes": fixes}, args.out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixes", default="bf16-autocast,tf32-matmul,deterministic-off,"
                                           "torch-compile,bf16-autocast+tf32-matmul")
    parser.add_argument("--cycles", type=int, default=4, help="the first is left out")
    parser.add_argument("--settle", type=int, default=None,
                        help="default: the DataLoader's queue (workers x prefetch_factor) + 3")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--long-runs", action="store_true",
                        help="each setting in a process of its own, timed over whole epochs")
    parser.add_argument("--epochs", type=int, default=3, help="timed epochs of a long run")
    parser.add_argument("--min-seconds", type=float, default=0.0,
                        help="a long run times more epochs than --epochs until their steps took "
                             "this long: as long a sample of a fast setting as of the baseline")
    parser.add_argument("--processes", type=int, default=1,
                        help="rounds of long runs, a process a setting each")
    parser.add_argument("--warmup-epochs", type=int, default=1)
    parser.add_argument("--one", default="", help=argparse.SUPPRESS)  # a long run's process
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--model", default="vit_base_patch16_224")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--out", default="")
    parser.add_argument("--loader-trace", default="",
                        help="a folder: the input pipeline's times per process "
                             "(bench/scripts/loader_trace.py)")
    args = parser.parse_args()
    device = torch.device(args.device)
    if args.processes < 1:
        raise SystemExit("seed_by_hand.py: --processes must be 1 or more")
    if args.loader_trace and not args.long_runs:  # a long run's parent trains nothing
        loader_trace.install(args.loader_trace, RandomImages)
    if args.one:
        one_long_run(args, device)
    elif args.long_runs:
        long_runs(args, device)
    else:
        if args.cycles < 2:
            raise SystemExit("seed_by_hand.py: --cycles must be 2 or more (the first is left out)")
        alternating_blocks(args, device)


if __name__ == "__main__":
    main()
