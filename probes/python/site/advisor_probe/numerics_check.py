"""Bench mode's numerics check inside the running script: before the blocks begin, each candidate
that must keep the computation is compared with the baseline on the same inputs from the same
weights, instead of in a baseline run and a candidate run of the script of their own.

On the step before the schedule's first block, the model's call (its positional and keyword
arguments, call_inputs) runs once more under the script's own settings and once under each
candidate's knobs, before the step's own forward:
- in training mode and with grad enabled, as the step computes (a fused attention kernel is chosen
  by whether its inputs require grad), the outputs detached and the graph dropped, no backward;
- from the same RNG state on each side (dropout draws the same masks), the RNG then put back as it
  was, so that the script's next draws are the ones it would have made;
- the model's buffers (BatchNorm's running statistics) put back after each side.
The weights, their gradients and the optimizer are not touched. Compared: every tensor of the
outputs (tuples, dicts, a ModelOutput, whose `loss` is the loss where the model computes it),
relative to the largest magnitude of each pair, against the tolerance of its dtype (advisor sends
the candidate's tolerance class's table, engine/autotest/tolerance.h). A loss computed by the
script outside the model is not compared; neither are gradients."""

import math

import torch

from advisor_probe import call_inputs
from advisor_probe import knobs

# The outputs compared at most: the rest of a model that returns every layer's hidden states
# adds little.
MAX_TENSORS = 256


def _tolerance(tensor, tolerances):
    dtype = str(tensor.dtype).replace("torch.", "")
    if dtype in tolerances:
        return float(tolerances[dtype])
    # Integers and booleans: reordering cannot change them. A floating dtype the table lacks: its
    # loosest value.
    return max(tolerances.values(), default=0.0) if tensor.is_floating_point() else 0.0


def _magnitude(tensor):
    return float(tensor.abs().max()) if tensor.numel() else 0.0


def compare(baseline, candidate, tolerances):
    """Compares two lists of (name, tensor), the baseline's and the candidate's outputs: the
    numbers of the tensor closest to (or past) its tolerance. `max_rel_diff` is None where a
    tensor is not finite or the outputs do not match in structure, which no tolerance admits."""
    result = {"max_abs_diff": 0.0, "max_rel_diff": 0.0, "tolerance": 0.0, "detail": "",
              "compared": 0}
    if [(name, t.shape, t.dtype) for name, t in baseline] != \
            [(name, t.shape, t.dtype) for name, t in candidate]:
        result.update(max_abs_diff=None, max_rel_diff=None,
                      detail="the outputs differ in structure, shape or dtype")
        return result
    worst_ratio = -1.0
    for (name, expected), (_, actual) in zip(baseline, candidate):
        label = "output" + name
        tolerance = _tolerance(expected, tolerances)
        result["compared"] += 1
        if expected.is_floating_point():
            if not bool(torch.isfinite(expected).all()) or not bool(torch.isfinite(actual).all()):
                result.update(max_abs_diff=None, max_rel_diff=None, tolerance=tolerance,
                              detail="%s is not finite" % label)
                return result
            wide = expected.dtype if expected.dtype in (torch.float32, torch.float64) \
                else torch.float32
            expected, actual = expected.to(wide), actual.to(wide)
        elif not expected.is_complex():
            expected, actual = expected.long(), actual.long()  # booleans have no subtraction
        difference = _magnitude(expected - actual)
        scale = max(_magnitude(expected), _magnitude(actual), 1e-12)
        relative = difference / scale
        if not math.isfinite(relative):  # float32's extremes overflow their difference
            result.update(max_abs_diff=None, max_rel_diff=None, tolerance=tolerance,
                          detail="%s differs beyond float range" % label)
            return result
        result["max_abs_diff"] = max(result["max_abs_diff"], difference)
        ratio = relative / tolerance if tolerance > 0 else (0.0 if relative == 0 else float("inf"))
        if ratio > worst_ratio:
            worst_ratio = ratio
            result.update(max_rel_diff=relative, tolerance=tolerance,
                          detail="%s: relative difference %.2e (tolerance %.0e)"
                          % (label, relative, tolerance))
    result["detail"] += ", %d %s compared" % (result["compared"],
                                              "tensor" if result["compared"] == 1 else "tensors")
    return result


def within(result):
    relative = result.get("max_rel_diff")
    return relative is not None and relative <= result["tolerance"]


def _inner(module):
    """The module a DistributedDataParallel wraps: its forward outside a step would wait for a
    backward that never comes, and the ranks' weights are equal anyway."""
    parallel = getattr(torch.nn.parallel, "DistributedDataParallel", None)
    return module.module if parallel is not None and isinstance(module, parallel) else module


def _sharded(module):
    """Whether FSDP (either generation) shards any of `module`, by class name: importing
    torch.distributed.fsdp fails on some builds (torch 1.13 under Python 3.11)."""
    names = {"FullyShardedDataParallel", "FSDPModule"}
    return any(c.__name__ in names for m in module.modules() for c in type(m).__mro__)


def check_in_run(module, args, kwargs, switches, checks, device):
    """Runs `module`'s call on `args` and `kwargs` under the baseline and under each candidate of
    `checks` ({id: (overrides, tolerances)}), as the module docstring says, and returns {id:
    compare's result, or {"error": why}}. Leaves the script's own settings set."""
    module = _inner(module)
    if _sharded(module):
        why = "the model is sharded by FullyShardedDataParallel, whose forward expects a backward"
        return {name: {"error": why} for name in checks}
    buffers = [(buffer, buffer.detach().clone()) for buffer in module.buffers()]
    devices = [device] if device is not None else []
    results = {}
    with torch.random.fork_rng(devices=devices):
        cpu_state = torch.get_rng_state()
        cuda_state = torch.cuda.get_rng_state(device) if device is not None else None

        def outputs(overrides):
            switches.set(overrides)
            torch.set_rng_state(cpu_state)
            if cuda_state is not None:
                torch.cuda.set_rng_state(cuda_state, device)
            try:
                with switches.autocast():
                    output = module.forward(*args, **kwargs)
                return [(name, tensor.detach()) for name, tensor in
                        call_inputs.named_tensors(output)][:MAX_TENSORS]
            finally:
                with torch.no_grad():
                    for buffer, saved in buffers:
                        buffer.copy_(saved)
                switches.set({})

        try:
            baseline = outputs({})
        except Exception as error:  # the script's own forward fails the same way: say why
            why = "the model's forward under the script's settings raised %s: %s" % (
                type(error).__name__, error)
            return {name: {"error": why} for name in checks}
        for name, (overrides, tolerances) in checks.items():
            try:
                results[name] = compare(baseline, outputs(knobs.as_checked(overrides)),
                                        tolerances)
            except Exception as error:
                results[name] = {"error": "the model's forward under the candidate raised %s: %s"
                                 % (type(error).__name__, error)}
    return results
