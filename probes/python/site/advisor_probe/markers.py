"""Bracketing modules with advisor's marker ops for one window.

A forward pre-hook passes the call's tensor inputs through advisor::mark (kind 0: forward enter;
its backward records "backward end" when the inputs' gradient is done), a forward hook passes the
outputs through it (kind 1: forward exit; "backward begin" when their gradient arrives). The marks
run on whatever thread autograd runs them, so backward ops land in their module. No full backward
hooks: an in-place op on a module's output keeps working. Hooks are removed after the window.
"""

import torch
from torch.utils import _pytree

ENTER, EXIT = 0, 1


def _mark(value, path, kind):
    # The common shapes first, without a tree walk: every instrumented call pays for this twice,
    # and a launch-bound model makes hundreds of calls a step. The overload itself, not the
    # packet, which resolves it on every call (2.3 against 3.5 us a call on the CI VM's CPU).
    mark = torch.ops.advisor.mark.default
    if isinstance(value, torch.Tensor):
        return mark([value], path, kind)[0]
    if type(value) is tuple and value and all(isinstance(v, torch.Tensor) for v in value):
        return tuple(mark(list(value), path, kind))
    leaves, spec = _pytree.tree_flatten(value)
    tensors = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
    if not tensors:
        torch.ops.advisor.mark_event(path, kind)
        return None
    marked = mark([leaves[i] for i in tensors], path, kind)
    for i, tensor in zip(tensors, marked):
        leaves[i] = tensor
    return _pytree.tree_unflatten(leaves, spec)


class Markers:
    def __init__(self):
        self._handles = []

    def install(self, modules_by_path):
        for path, module in modules_by_path.items():
            self._handles.append(module.register_forward_pre_hook(self._enter(path)))
            self._handles.append(module.register_forward_hook(self._exit(path)))

    def remove(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    @staticmethod
    def _enter(path):
        def hook(module, args):
            return _mark(args, path, ENTER)
        return hook

    @staticmethod
    def _exit(path):
        def hook(module, args, output):
            return _mark(output, path, EXIT)
        return hook
