#!/usr/bin/env python3
"""Calibration helpers for models with a planted hot spot (the demo and the test models).

For every level of the path to the planted module this measures the forward+backward time of the
module on the path and of its siblings, and which ops dominate the planted module's forward and
backward. That is what ``advisor bisect`` must find, measured here independently of advisor:

* inputs of every module are captured with forward hooks during one eager forward of the workload;
* each TorchScript submodule is then run alone on its captured inputs (forward, then backward with
  gradients of ones), warmed up past the profiling executor's compilation, and timed;
* each module on the path is profiled with torch.profiler to rank its forward ops (outermost ATen
  ops) and its backward ops (autograd nodes; the ATen ops inside TorchScript's
  DifferentiableGraphBackward nodes) by inclusive CPU time, summed by name.

Used by scripts/demo/make_demo.py --measure and tests/models/make_models.py --measure. Runs with
PyTorch 1.13 and 2.x (on the project's Debian machines: /usr/bin/python3).
"""

import functools
import re
import statistics
import time

import torch
from torch import nn

import advisor_export

# Autograd node events: "GatherBackward0", "torch::autograd::AccumulateGrad", ...; the engine's
# "autograd::engine::evaluate_function: X" wrappers are left out.
BACKWARD_NODE = re.compile(
    r"^(?!autograd::engine::evaluate_function).*(Backward\d*|AccumulateGrad)$")


def submodule(module, path):
    """The submodule at a dotted path; works for eager and TorchScript modules alike."""
    return functools.reduce(getattr, path.split("."), module) if path else module


def called_children(module, prefix=""):
    """(path, module) of the children a module's forward can call: containers (ModuleList,
    ModuleDict) are looked through, since their items are called, not the container."""
    result = []
    for name, child in module.named_children():
        path = f"{prefix}.{name}" if prefix else name
        if isinstance(child, (nn.ModuleList, nn.ModuleDict)):
            result.extend(called_children(child, path))
        else:
            result.append((path, child))
    return result


def capture_inputs(model, paths, inputs):
    """Runs one eager forward; returns {path: positional args} for the listed modules that ran."""
    captured = {}

    def hook(path):
        def record(_module, args):
            captured.setdefault(path, tuple(
                a.detach().clone().requires_grad_(a.requires_grad) if isinstance(a, torch.Tensor)
                else a for a in args))
        return record

    handles = [submodule(model, p).register_forward_pre_hook(hook(p)) for p in paths]
    try:
        model(*inputs)
    finally:
        for h in handles:
            h.remove()
    return captured


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def forward_backward(module, args):
    """Forward, then backward from every differentiable output with gradients of ones."""
    outputs = [t for t in _tensors(module(*args)) if t.requires_grad]
    if outputs:
        torch.autograd.backward(outputs, [torch.ones_like(t) for t in outputs])


def _reset_grads(module, args):
    module.zero_grad(set_to_none=True)
    for a in args:
        if isinstance(a, torch.Tensor):
            a.grad = None


def time_forward_backward(calls, repeats=7, warmup=3):
    """Median wall time (seconds) of forward_backward for each (module, args) in ``calls``.

    The calls are timed round-robin (one run of each per round), so that load from other
    processes hits them alike; the first ``warmup`` rounds are not timed.
    """
    times = [[] for _ in calls]
    for r in range(warmup + repeats):
        for (module, args), samples in zip(calls, times):
            _reset_grads(module, args)
            start = time.perf_counter()
            forward_backward(module, args)
            if r >= warmup:
                samples.append(time.perf_counter() - start)
    return [statistics.median(samples) for samples in times]


def top_ops(module, args, count=5, warmup=3):
    """Ranks a module's ops by inclusive CPU time, summed by name, over one forward_backward.

    Returns {"forward": [(op, ms)], "backward": [(op, ms)]}. Forward entries are ATen ops not
    nested in another ATen op. Backward entries are autograd nodes (GatherBackward0,
    AccumulateGrad, ...), except that a TorchScript DifferentiableGraphBackward node, which runs a
    whole differentiated subgraph, is replaced by the outermost ATen ops it runs.
    """
    for _ in range(warmup):
        _reset_grads(module, args)
        forward_backward(module, args)
    _reset_grads(module, args)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        with torch.profiler.record_function("measure::forward"):
            outputs = [t for t in _tensors(module(*args)) if t.requires_grad]
        with torch.profiler.record_function("measure::backward"):
            if outputs:
                torch.autograd.backward(outputs, [torch.ones_like(t) for t in outputs])
    totals = {"forward": {}, "backward": {}}
    for event in prof.events():
        phase = _phase_of(event)
        if phase is None or not _counts(event, phase):
            continue
        totals[phase][event.name] = totals[phase].get(event.name, 0.0) + event.cpu_time_total / 1e3
    return {phase: sorted(ops.items(), key=lambda kv: -kv[1])[:count]
            for phase, ops in totals.items()}


def _counts(event, phase):
    """Whether an event is one of the ops top_ops ranks (see there)."""
    is_node = BACKWARD_NODE.search(event.name) is not None
    if phase == "backward" and is_node:
        return "DifferentiableGraphBackward" not in event.name
    if not event.name.startswith("aten::"):
        return False
    owner = event.cpu_parent  # the nearest enclosing ATen op or autograd node, if any
    while owner is not None and not (owner.name.startswith("aten::")
                                     or BACKWARD_NODE.search(owner.name)):
        owner = owner.cpu_parent
    if phase == "forward":
        return owner is None
    return owner is not None and "DifferentiableGraphBackward" in owner.name


def _phase_of(event):
    while event is not None:
        if event.name in ("measure::forward", "measure::backward"):
            return event.name.split("::")[1]
        event = event.cpu_parent
    return None


def level_report(eager, scripted, inputs, path, repeats=7):
    """Times the module on each level of ``path`` against its siblings.

    Returns a list of levels, each {"parent", "hot", "hot_ms", "siblings": {path: ms},
    "ratio": hot_ms / the slowest sibling's ms}.
    """
    levels = []
    parent = ""
    while parent != path:
        children = [p for p, _ in called_children(submodule(eager, parent), parent)]
        hot = next((c for c in children if path == c or path.startswith(c + ".")), None)
        if hot is None:
            raise ValueError(f"{path}: no called child of {parent or 'the root'} leads there")
        levels.append((parent, hot, children))
        parent = hot
    every_path = sorted({c for _, _, children in levels for c in children})
    captured = capture_inputs(eager, every_path, inputs)
    report = []
    for parent, hot, children in levels:
        called = [c for c in children if c in captured]
        medians = time_forward_backward([(submodule(scripted, c), captured[c]) for c in called],
                                        repeats)
        times = {c: t * 1e3 for c, t in zip(called, medians)}
        siblings = {c: t for c, t in times.items() if c != hot}
        slowest = max(siblings.values()) if siblings else 0.0
        report.append({"parent": parent, "hot": hot, "hot_ms": times[hot], "siblings": siblings,
                       "ratio": times[hot] / slowest if slowest else float("inf")})
    return report


def measure(eager, scripted, workload, path, steps=10):
    """Prints the calibration of one exported model: per-step time of the whole TorchScript module,
    the level-by-level timings of ``path`` against its siblings (see level_report, which it
    returns), and the top ops of every module on the path."""
    step_times = advisor_export.time_steps(scripted, workload, steps)
    print(f"  training step: median {statistics.median(step_times) * 1e3:.1f} ms over {steps} "
          f"steps ({torch.get_num_threads()} thread(s))")
    inputs, _ = advisor_export.make_batch(workload)
    report = level_report(eager, scripted, inputs, path)
    for level in report:
        slowest = max(level["siblings"].items(), key=lambda kv: kv[1], default=("-", 0.0))
        print(f"  {level['parent'] or '<root>'}: {level['hot']} {level['hot_ms']:.2f} ms, slowest "
              f"sibling {slowest[0]} {slowest[1]:.2f} ms, ratio {level['ratio']:.1f}x "
              f"({len(level['siblings'])} siblings)")
    hot_paths = [level["hot"] for level in report]
    captured = capture_inputs(eager, hot_paths, inputs)
    for hot in hot_paths:
        ops = top_ops(submodule(scripted, hot), captured[hot])
        for phase in ("forward", "backward"):
            listed = ", ".join(f"{name} {ms:.2f}" for name, ms in ops[phase])
            print(f"  {hot} {phase} ops (ms): {listed}")
    return report
