#!/usr/bin/env python3
"""What advisor's probe leaves in a script's steps once it has detached (`--let-run`), measured
inside one process (issue #11: the steps outside advisor's windows at <= 1.01x the script alone).

    bench/detached_cost.py [--site build/probe/site] [--device cuda] [--blocks 20] [--steps 50]
    python3 -m torch.distributed.run --standalone --nproc_per_node 2 bench/detached_cost.py --ddp ...

Comparing the script alone with the script under advisor takes two processes, and two processes of
the launch-bound script differ by more than the 1 % to be shown (37.0-47.1 ms a step alone on the
H100 host, cores pinned). Here one process trains the launch-bound model (bench/scripts/
launch_bound_train.py's) with the probe's Python session started as sitecustomize starts it, lets
it discover the model and detach as `--let-run` does, then alternates blocks of steps with what the
detached probe leaves installed (its optimizer step hooks, its torch.autograd.backward wrapper, its
forward pre-hook and forward hook on the model) and blocks with all of that taken out: the noise
between processes cancels, and what is left is the probe's own cost. Blocks run in ABBA order so
that a drift in the machine's speed falls on both sides. Beside it, the detached hooks themselves are called as one
step calls them, many times over (`hooks_us_per_step`): what they cost without any step's noise,
against which the blocks' ratio can be read. Prints one JSON line.

With --ddp, under torchrun, every rank trains the model wrapped in DistributedDataParallel (NCCL on
GPUs, gloo on the CPU) and switches the hooks in and out at the same steps, so each block is the
job's step as its slowest rank sets it (issue #16: two processes of a DDP job are as far apart as
two of the launch-bound script); rank 0 prints the line.
"""

import argparse
import json
import os
import statistics
import shutil
import sys
import tempfile
import time

import torch
from torch import nn

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))
from make_launch_bound import LaunchBound  # noqa: E402


class DetachingChannel:
    """advisor's end of the channel as `--let-run` uses it once the bisection is over: every
    question the probe asks is answered with "detach"."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="advisor-detached-")
        self.sent = []

    def send(self, message):
        self.sent.append(message.get("type"))

    def send_text(self, text):
        self.sent.append(text[:20])

    def receive(self):
        return {"op": "detach"}

    def close(self):
        shutil.rmtree(self.folder, ignore_errors=True)


class ProbeHooks:
    """What the detached session leaves in the process, and a switch to take it out and put it
    back without touching anything else."""

    def __init__(self, session, model, optimizer, originals):
        optim = sys.modules["torch.optim.optimizer"]
        self._swaps = [(torch.autograd, "backward", originals["backward"],
                        torch.autograd.backward)]
        if hasattr(optim, "_global_optimizer_pre_hooks"):  # torch 2.x: global step hooks
            self._hook_dicts = [(d, dict(d)) for d in (optim._global_optimizer_pre_hooks,
                                                       optim._global_optimizer_post_hooks)]
        else:  # torch 1.x: the optimizer's class step is wrapped
            cls = type(optimizer)
            self._swaps.append((cls, "step", cls.step.__wrapped__, cls.step))
            self._hook_dicts = []
        # The model's own hooks (a wrapper's) stay: only the probe's two are switched.
        for live in (model._forward_pre_hooks, model._forward_hooks):
            self._hook_dicts.append((live, {key: hook for key, hook in live.items()
                                            if getattr(hook, "__self__", None) is session}))
            if not self._hook_dicts[-1][1]:
                raise SystemExit("detached_cost: the probe put no hook on the model")
        self.other_model_hooks = len(model._forward_pre_hooks) - len(self._hook_dicts[-2][1])

    def install(self, on):
        for owner, name, original, wrapped in self._swaps:
            setattr(owner, name, wrapped if on else original)
        for live, installed in self._hook_dicts:
            for key, hook in installed.items():
                if on:
                    live[key] = hook
                else:
                    live.pop(key, None)


def hooks_us_per_step(session, model, optimizer, inputs, repeats=20000):
    """One step's calls into the detached session, timed directly: the model's forward pre-hook
    and hook, the backward wrapper's two calls and the optimizer step's two hooks."""
    loss = torch.zeros((), requires_grad=True)
    start = time.perf_counter()
    for _ in range(repeats):
        session._model_forward(model, (inputs,))
        session._model_forward_end(model, (inputs,), None)
        session._backward_starts(loss)
        session._backward_ends()
        session._optimizer_starts(optimizer)
        session._optimizer_ends()
    return (time.perf_counter() - start) * 1e6 / repeats


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", default=os.path.join(ROOT, "probes", "python", "site"))
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--blocks", type=int, default=20, help="blocks of each kind")
    parser.add_argument("--steps", type=int, default=50, help="steps a block")
    parser.add_argument("--ddp", action="store_true",
                        help="under torchrun: DistributedDataParallel over the launcher's ranks")
    args = parser.parse_args()
    sys.path.insert(0, args.site)
    from advisor_probe.session import Session

    originals = {"backward": torch.autograd.backward}
    channel = DetachingChannel()
    session = Session(channel)
    session.start()

    torch.manual_seed(0)
    device = torch.device(args.device)
    rank = 0
    if args.ddp:
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel
        rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
        if device.type == "cuda":
            device = torch.device("cuda", local_rank)
            torch.cuda.set_device(device)
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    model = LaunchBound(150, 64, 10).to(device)
    if args.ddp:
        model = DistributedDataParallel(model, device_ids=[device.index] if device.index is not None
                                        else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    inputs = torch.randn(32, 64, device=device)
    labels = torch.randint(0, 10, (32,), device=device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)

    def step():
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for _ in range(20):  # the probe finds the model, describes it, and is told to detach
        step()
    if session._channel is not None or session._tree is None or "model" not in channel.sent:
        raise SystemExit("detached_cost: the probe did not find the model and detach "
                         "(sent: %s)" % channel.sent)
    hooks = ProbeHooks(session, model, optimizer, originals)

    def block(installed):
        hooks.install(installed)
        sync()
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        sync()
        return (time.perf_counter() - start) * 1e3 / args.steps

    block(True), block(False)  # warm both paths
    pairs = []
    for index in range(args.blocks):
        order = (True, False) if index % 2 == 0 else (False, True)  # ABBA
        times = {installed: block(installed) for installed in order}
        pairs.append((times[True], times[False]))
    hooks.install(True)
    hook_us = hooks_us_per_step(session, model, optimizer, inputs)
    ratios = [probe / alone for probe, alone in pairs]
    mean = statistics.mean(ratios)
    half_width = 1.96 * statistics.stdev(ratios) / len(ratios) ** 0.5
    if args.ddp:
        world = torch.distributed.get_world_size()
        torch.distributed.destroy_process_group()
        if rank != 0:
            return
    print(json.dumps({
        "device": args.device, "torch": torch.__version__,
        "ranks": world if args.ddp else 1, "blocks": args.blocks,
        "steps_per_block": args.steps,
        "alone_ms": round(statistics.median(p[1] for p in pairs), 3),
        "detached_probe_ms": round(statistics.median(p[0] for p in pairs), 3),
        "ratio_mean": round(mean, 4), "ratio_95ci": [round(mean - half_width, 4),
                                                     round(mean + half_width, 4)],
        "ratio_median": round(statistics.median(ratios), 4),
        "extra_us_per_step": round(statistics.median((p[0] - p[1]) * 1e3 for p in pairs), 1),
        "hooks_us_per_step": round(hook_us, 2),
        "other_model_pre_hooks": hooks.other_model_hooks,
        "hooks_ratio": round(1 + hook_us * 1e-3 / statistics.median(p[1] for p in pairs), 5),
    }))


if __name__ == "__main__":
    main()
