"""The module that owns the model's roots where its own forward is never called.

A LightningModule's `training_step` calls `self.head(self.encoder(x))`; a hand loop calls
`model.encoder(x)`, then `model.head(h)`. The probe sees `encoder` and `head` called outermost and
nothing above them, but the user names them through the object that holds them, `encoder.2` and
`head`. That object is never called, so no hook sees it: it is looked for in the frames that call
the roots (the `self` of `training_step`, a loop's `model`, a trainer object's `self.model`), the
only place it is sure to be while they run. No garbage-collector walk: a module's referrers are
its parent's `_modules` dict or the parent itself, depending on the Python version.
"""

import types

import torch

from advisor_probe import modules as module_tree


def modules_in_frames(frame):
    """The modules the locals of `frame` and its callers hold, directly or as an attribute of a
    plain object (a trainer's `self.model`), each with the modules it wraps (DDP's `module`,
    torch.compile's `_orig_mod`): id -> module."""
    found = {}
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if _is_module(value):
                _add_with_wrapped(value, found)
            else:
                for attribute in _attributes(value):
                    if _is_module(attribute):
                        _add_with_wrapped(attribute, found)
        frame = frame.f_back
    return found


def _is_module(value):
    # By its type alone: isinstance would ask a proxy's own __class__, running the script's code.
    return issubclass(type(value), torch.nn.Module)


def _attributes(value):
    """The values of a plain object's own attributes; none for a Python module's namespace, a
    class's, or an object without an instance dict."""
    if issubclass(type(value), (types.ModuleType, type)):
        return ()
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 (a proxy's or extension type's own business)
        return ()
    return list(attributes.values()) if type(attributes) is dict else ()


def _add_with_wrapped(module, found):
    while module is not None and id(module) not in found:
        found[id(module)] = module
        module = module_tree.wrapped(module)


def common_owner(roots, candidates):
    """The one module of `candidates` (id -> module) that holds every root below itself and holds
    no other such candidate; None where none does or several do (two wrappers of the same
    modules): the roots then keep their own names."""
    root_ids = {id(root) for root in roots}
    inside = {}  # id(owner) -> the ids of the modules below it, for the owners of every root
    for key, candidate in candidates.items():
        if key in root_ids:
            continue
        below = {id(m) for m in candidate.modules()}
        if root_ids <= below:
            inside[key] = below
    lowest = [key for key, below in inside.items()
              if not any(other != key and other in below for other in inside)]
    return candidates[lowest[0]] if len(lowest) == 1 else None
