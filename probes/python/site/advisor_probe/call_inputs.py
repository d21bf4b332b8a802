"""The tensors a module was called with, whatever the calling convention.

People call models positionally (`model(x)`), by keyword (`model(input_ids=ids, labels=ids)`, as
every Hugging Face user does), with a tokenizer's BatchEncoding unpacked or passed whole, with
dicts, lists and dataclasses of tensors. The probe reads the batch size and the compute dtype from
the model's first training call, and the samples a benchmark step trained on, from all of them.

A forward pre-hook common to every module (register_module_forward_pre_hook, which finds the
model) is given the positional arguments only, and torch 1.x has no keyword-argument hooks at all:
the keyword arguments are read from the module's call frame instead (Module._call_impl's `kwargs`,
the same name in torch 1.13 and 2.x).
"""

import dataclasses
import sys
from collections.abc import Mapping

import torch

# How far a hook is from the module's call: the hook, the probe's error wrapper, the session's
# handler and the helpers between them.
_MAX_FRAMES = 8
# Nesting followed into containers: a batch is a tuple of dicts of tensors at most, in practice.
_MAX_DEPTH = 4
_CALL_FRAMES = ("_call_impl", "_wrapped_call_impl")


def call_kwargs(module):
    """The keyword arguments of `module`'s call in progress; {} where none is found."""
    frame = sys._getframe(1)
    for _ in range(_MAX_FRAMES):
        if frame is None:
            break
        if frame.f_code.co_name in _CALL_FRAMES and frame.f_locals.get("self") is module:
            kwargs = frame.f_locals.get("kwargs")
            return kwargs if isinstance(kwargs, dict) else {}
        frame = frame.f_back
    return {}


def named_tensors(value, name="", depth=0):
    """Every tensor in `value` with where it sits, in order: itself, or inside tuples, lists,
    mappings (a BatchEncoding is one; a ModelOutput is an ordered dict) and dataclasses, named
    like `name[0].logits`."""
    if isinstance(value, torch.Tensor):
        yield name, value
        return
    if depth >= _MAX_DEPTH:
        return
    if isinstance(value, Mapping):
        items = [(".%s" % key, item) for key, item in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [("[%d]" % place, item) for place, item in enumerate(value)]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [(".%s" % field.name, getattr(value, field.name, None))
                 for field in dataclasses.fields(value)]
    else:
        return
    for key, item in items:
        yield from named_tensors(item, name + key, depth + 1)


def tensors_in(value):
    """Every tensor in `value`, in order (named_tensors without the names)."""
    return (tensor for _, tensor in named_tensors(value))


def call_tensors(module, args):
    """The tensors of `module`'s call in progress, a list: its positional arguments', then its
    keyword arguments' in the order given. Called from a hook on that call."""
    return list(tensors_in(args)) + list(tensors_in(call_kwargs(module)))


def batched_tensor(tensors):
    """The first tensor with a batch dimension (a 0-d tensor has none); None where none has."""
    return next((t for t in tensors if t.dim() > 0), None)
