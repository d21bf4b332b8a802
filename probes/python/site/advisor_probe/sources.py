"""Where in the user's code the time goes: the lines of a module's forward, or of the loss.

While labelling, every line of the code it traces runs inside a range named after it (the native
probe's advisor::label_begin, label_next and label_end), by a line tracer (sys.settrace): the
code outside torch's package, the probe and Python's own library, so a model's lines are labelled
wherever they live (the user's file, timm's), and `self.fc(x)` is one line, torch's
Linear.forward inside it. The native probe records the ranges around the ATen ops they enclose:
an op's innermost range names its line, and advisor sums each line's time outside the lines it
calls, its ops and the backward nodes they made (engine/analysis/line_costs). A line tracer, not
a TorchFunctionMode: indexing (x[i], x[a:b]) reaches no mode on torch 1.x, and a loop's own
Python between the ops is its line's time too.

A module's forward is labelled between its hooks, each call inside an "advisor.call" range
(advisor counts the module's calls by them). The loss is labelled from the model's forward
returning to backward() (session.py). A script that traces itself (a debugger, coverage) keeps
its tracer and gets no lines.
"""

import linecache
import os
import sys
import sysconfig

import torch

PREFIX = "advisor.source@"
CALL = "advisor.call"


def _library_dirs():
    paths = sysconfig.get_paths()
    dirs = {paths.get("stdlib"), paths.get("platstdlib"),
            os.path.dirname(os.path.abspath(torch.__file__)),  # torch's package
            os.path.dirname(os.path.abspath(__file__))}  # the probe
    return tuple(os.path.join(os.path.abspath(d), "") for d in dirs if d)


_LIBRARY_DIRS = _library_dirs()
_traced_files = {}


def traced(filename):
    """Code whose lines are labelled: not torch's, the probe's or Python's own library."""
    known = _traced_files.get(filename)
    if known is None:
        known = not filename.startswith("<") and \
            not os.path.abspath(filename).startswith(_LIBRARY_DIRS)
        _traced_files[filename] = known
    return known


class NativeRanges:
    """The native probe's ranges: begin(name), next(name) (end the innermost, begin another),
    end()."""

    def __init__(self):
        self.begin = torch.ops.advisor.label_begin.default
        self.next = torch.ops.advisor.label_next.default
        self.end = torch.ops.advisor.label_end.default


class LineLabels:
    """Labels the lines that run between resume() and pause(), from the frame that resumes
    outwards and in every frame called meanwhile, starting with the line that runs as it resumes
    (the one that calls the module, where the module's own code is torch's: an nn.Linear's ops are
    the line's that calls it); `seen` collects (file, line) of every label. `ranges` records them
    (NativeRanges, or a test's stand-in)."""

    def __init__(self, seen, ranges=None):
        self._seen = seen
        self._open = []  # the frames whose line's range is open, innermost last
        self._on = False
        self._ranges = ranges or NativeRanges()
        # (code, line) -> its range's name. A line's range runs on until the tracer has handled the
        # next line's event, so that handling is every line's cost: made once a line, not a run.
        self._names = {}

    def resume(self):
        if self._on or sys.gettrace() is not None:
            return
        frame = sys._getframe(1)
        running = None  # the innermost traced frame: its line runs now
        while frame is not None:
            if traced(frame.f_code.co_filename):
                frame.f_trace = self._line
                running = running or frame
            frame = frame.f_back
        self._on = True
        if running is not None:
            self._label(running)
        sys.settrace(self._call)

    def pause(self):
        if not self._on:
            return
        sys.settrace(None)
        self._on = False
        while self._open:
            self._open.pop()
            self._ranges.end()

    def _call(self, frame, event, arg):
        return self._line if traced(frame.f_code.co_filename) else None

    def _line(self, frame, event, arg):
        if not self._on:
            return None  # a frame resume() marked, once labelling has ended
        if event == "line":
            self._label(frame)
        elif event == "return":
            self._end(frame)
        return self._line

    def _label(self, frame):
        """The frame's line begins: where the frame's previous line's range is open, it ends at
        once."""
        key = (frame.f_code, frame.f_lineno)
        name = self._names.get(key)
        if name is None:
            where = (os.path.abspath(frame.f_code.co_filename), frame.f_lineno)
            self._seen.add(where)
            name = self._names[key] = "%s%s:%d" % (PREFIX, where[0], where[1])
        if self._open and self._open[-1] is frame:
            self._ranges.next(name)
        else:
            self._ranges.begin(name)
            self._open.append(frame)

    def _end(self, frame):
        if self._open and self._open[-1] is frame:
            self._open.pop()
            self._ranges.end()


class SourceCapture:
    """Labels the lines of one module's forward while it runs; `seen` collects (file, line) of
    every label."""

    def __init__(self, module, seen):
        self._ranges = NativeRanges()
        self._labels = LineLabels(seen, self._ranges)
        self._in_call = False
        self._handles = [module.register_forward_pre_hook(self._enter),
                         module.register_forward_hook(self._exit)]

    def _enter(self, module, args):
        if not self._in_call:
            self._in_call = True
            self._ranges.begin(CALL)
            self._labels.resume()

    def _exit(self, module, args, output):
        if self._in_call:
            self._labels.pause()
            self._ranges.end()
            self._in_call = False

    def remove(self):
        for handle in self._handles:
            handle.remove()


def line_text(filename, line):
    return linecache.getline(filename, line).strip()
