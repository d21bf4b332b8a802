"""Where in the user's code a module's forward calls an op.

For one step, every torch function the module's forward calls runs inside a record_function
range named after the calling line: the first frame outside torch's package (and outside this
probe), so `self.fc(x)` points at the user's line, not at torch/nn/modules/linear.py. The native
probe records those ranges around the ATen ops they enclose, and the op's innermost range names
its line.
"""

import linecache
import os
import sys

import torch
from torch.overrides import TorchFunctionMode

PREFIX = "advisor.source@"
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_PROBE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_frame():
    frame = sys._getframe(2)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_TORCH_DIR) and not filename.startswith(_PROBE_DIR):
            return filename, frame.f_lineno
        frame = frame.f_back
    return None


class _LabelCalls(TorchFunctionMode):
    def __init__(self, seen):
        super().__init__()
        self._seen = seen

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        where = _user_frame()
        if where is None:
            return func(*args, **kwargs)
        self._seen.add(where)
        with torch.autograd.profiler.record_function("%s%s:%d" % (PREFIX, where[0], where[1])):
            return func(*args, **kwargs)


class SourceCapture:
    """Labels the calls of one module's forward while it runs; `seen` collects (file, line) of
    every label."""

    def __init__(self, module, seen):
        self._seen = seen
        self._mode = None
        self._handles = [module.register_forward_pre_hook(self._enter),
                         module.register_forward_hook(self._exit)]

    def _enter(self, module, args):
        if self._mode is None:
            self._mode = _LabelCalls(self._seen)
            self._mode.__enter__()

    def _exit(self, module, args, output):
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None

    def remove(self):
        for handle in self._handles:
            handle.remove()


def line_text(filename, line):
    return linecache.getline(filename, line).strip()
