"""The input pipeline measured where it runs: in each DataLoader worker process, or in the main
process when the loader has no workers (docs/script-mode.md, "Inside the input pipeline").

Outside a measured window it costs a check of one shared byte per batch and one Python call per
transform call. While the main process's flag is on, each batch's fetch (the Dataset's items and
the collate function) is timed, and so is every transform the Dataset holds (the callables in its
attributes, the steps of a Compose-like object, whatever its list is called, the functions of the
user's code that its `__getitem__` calls) and the collate function; one item in SAMPLE_EVERY, at most
SAMPLES per window, also runs under a line tracer that gives each line of the user's code its own
time and its heaviest torch call. Each batch becomes one JSON line in the worker's file of the
main process's private folder; the main process reads them at the window's end (input_stage.py).

This module is imported in the worker by unpickling WorkerInit (spawned workers) or inherited
(forked ones): it must not need the main process's state.
"""

import json
import mmap
import os
import site
import sys
import sysconfig
import time

import torch

now = time.monotonic_ns

SAMPLE_EVERY = 4  # items between two line-traced ones
SAMPLES = 16      # line-traced items per worker and window: bounds what tracing costs
FLAG_BYTES = 8    # byte 0: measuring; bytes 4-7: the window's generation


def _library_dirs():
    paths = sysconfig.get_paths()
    dirs = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    dirs.add(os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__))))  # torch's site dir
    dirs.add(os.path.dirname(os.path.abspath(__file__)))  # the probe
    return tuple(os.path.join(os.path.abspath(d), "") for d in dirs if d)


_LIBRARY_DIRS = _library_dirs()
_PROBE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")
_user_files = {}


def is_user_file(filename):
    """Code the user wrote: not Python's, not an installed package's, not torch's or the probe's."""
    known = _user_files.get(filename)
    if known is None:
        path = os.path.abspath(filename)
        known = not filename.startswith("<") and not path.startswith(_LIBRARY_DIRS)
        _user_files[filename] = known
    return known


def _where(code, line=None):
    return [os.path.abspath(code.co_filename), line or code.co_firstlineno]


def _code_of(callable_):
    """The code object of a transform: a function's, a method's, an object's __call__ or
    (nn.Module) forward; None for builtins."""
    target = callable_
    if isinstance(callable_, torch.nn.Module):
        target = type(callable_).forward
    elif not hasattr(callable_, "__code__") and not hasattr(callable_, "__func__"):
        target = getattr(type(callable_), "__call__", None)
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", None)


def _name_of(transform):
    target = getattr(transform, "func", transform)  # functools.partial's function
    if hasattr(target, "__code__") or hasattr(target, "__func__"):
        return getattr(target, "__qualname__", type(target).__name__)
    return type(target).__name__


def _arrays(value, depth=0):
    """The tensors (and numpy arrays) of an item or a transform's argument, in order: a sample is
    often a tuple or dict of an image, a mask and a label."""
    if isinstance(value, torch.Tensor) or (type(value).__module__ == "numpy" and
                                           hasattr(value, "shape") and hasattr(value, "dtype")):
        return [value]
    if depth > 1:
        return []
    members = value.values() if isinstance(value, dict) else \
        value if isinstance(value, (list, tuple)) else ()
    return [array for member in members for array in _arrays(member, depth + 1)]


def main_array(value):
    """The largest array of an item."""
    return max(_arrays(value), key=_size, default=None)


def worked_on(inputs, output):
    """The array a transform works on and what became of it: the largest input it did not pass
    through unchanged (a mask's dilation returns the image as it came), else the largest input
    and the largest output."""
    arrays_in, arrays_out = _arrays(inputs), _arrays(output)
    if len(arrays_in) == len(arrays_out):
        changed = [(a, b) for a, b in zip(arrays_in, arrays_out) if a is not b]
        if changed:
            return max(changed, key=lambda pair: _size(pair[0]))
    return main_array(inputs), main_array(output)


def _size(array):
    size = 1
    for extent in array.shape:
        size *= int(extent)
    return size


def _dtype(array):
    return str(array.dtype).replace("torch.", "")


def _is_binary(array):
    """Holds only 0 and 1 in a floating dtype: a mask computed in float. None where not floating
    (a bool or integer mask is narrow already) or empty."""
    floating = array.is_floating_point() if isinstance(array, torch.Tensor) else \
        array.dtype.kind == "f"
    if not floating or _size(array) == 0:
        return None
    return bool(((array == 0) | (array == 1)).all())


class _Batch:
    """One measured batch: its pieces' times summed over its items, its sampled lines."""

    def __init__(self, generation, worker):
        self.record = {"gen": generation, "worker": worker, "start": now(), "items": 0,
                       "items_ns": 0, "pieces": {}, "described": {}, "sampled": 0,
                       "sampled_ns": 0, "lines": {}, "ops": {}}

    def add_piece(self, path, ns):
        pieces = self.record["pieces"]
        pieces[path] = pieces.get(path, 0) + ns


class LineSampler:
    """A line tracer over the user's code for one item: each line's own time (nested traced
    frames and timed transforms taken out, so that lines add up) and the torch call that took
    most of it. sys.settrace gives the lines, sys.setprofile the C calls (torch's ops)."""

    def __init__(self, lines, ops):
        self._lines = lines  # "file:line" -> ns
        self._ops = ops      # "file:line" -> {op: ns}
        # One entry per traced frame or timed transform in progress:
        # [its line's key (None for a transform), since, nested time of that line, its start].
        self._stack = []
        self._c_calls = []   # [start, callable] of C calls in progress

    def run(self, function, *args):
        sys.setprofile(self._profile)
        sys.settrace(self._call)
        try:
            return function(*args)
        finally:
            sys.settrace(None)
            sys.setprofile(None)
            self._stack.clear()

    def enter_transform(self):
        if self._stack:
            t = now()
            self._stack.append([None, t, 0, t])

    def exit_transform(self):
        if self._stack and self._stack[-1][0] is None:
            self._pop(now())

    def _call(self, frame, event, arg):
        if not is_user_file(frame.f_code.co_filename):
            return None
        t = now()
        self._stack.append([self._key(frame), t, 0, t])
        return self._local

    def _local(self, frame, event, arg):
        t = now()
        if not self._stack:
            return None
        if event == "line":
            entry = self._stack[-1]
            self._close_line(entry, t)
            entry[0] = self._key(frame)
        elif event == "return":
            self._pop(t)
        return self._local

    def _pop(self, t):
        entry = self._stack.pop()
        self._close_line(entry, t)
        if self._stack:  # the parent's line spent this time in a nested frame, not itself
            self._stack[-1][2] += t - entry[3]

    def _close_line(self, entry, t):
        if entry[0] is not None:
            self._lines[entry[0]] = self._lines.get(entry[0], 0) + max(t - entry[1] - entry[2], 0)
        entry[1], entry[2] = t, 0

    @staticmethod
    def _key(frame):
        return "%s:%d" % (os.path.abspath(frame.f_code.co_filename), frame.f_lineno)

    def _profile(self, frame, event, arg):
        # The probe's own calls (its clock, the wrappers around the transforms) are not the
        # user's line's: a call from the probe's wrapper showed as line 36's "list.pop".
        if arg is now or frame.f_code.co_filename.startswith(_PROBE_DIR):
            return
        if event == "c_call":
            self._c_calls.append([now(), arg])
        elif event in ("c_return", "c_exception") and self._c_calls:
            start, function = self._c_calls.pop()
            if self._stack and self._stack[-1][0] is not None:
                ops = self._ops.setdefault(self._stack[-1][0], {})
                name = op_name(function)
                ops[name] = ops.get(name, 0) + now() - start


def op_name(function):
    name = getattr(function, "__name__", "?")
    owner = getattr(function, "__self__", None)
    if isinstance(owner, torch.Tensor):
        return "Tensor." + name
    if getattr(function, "__module__", None) == "torch":
        return "torch." + name
    return getattr(function, "__qualname__", name)


class Pipeline:
    """The instrumentation of one process's view of a Dataset. `flag` is the main process's shared
    byte; `sink(record)` takes each measured batch."""

    def __init__(self, dataset, flag, sink, worker):
        self._flag = flag
        self._sink = sink
        self._worker = worker
        self._dataset = dataset
        self._batch = None
        self._generation = None
        self._sampled = 0       # line-traced items this window
        self._items = 0         # items measured this window
        self._described = set()  # pieces described this window
        self.sampler = None      # the item being line-traced, if one is
        self._undo = []

    # ---- set-up -----------------------------------------------------------------------------

    def install(self):
        """Wraps the fetchers' fetch (the batch), the Dataset's __getitem__ (the items) and its
        transforms; returns the undo."""
        from torch.utils.data._utils import fetch

        for fetcher in (fetch._MapDatasetFetcher, fetch._IterableDatasetFetcher):
            self._set(fetcher, "fetch", self._timed_fetch(fetcher.fetch))
        dataset = _unwrapped(self._dataset)
        if not isinstance(dataset, torch.utils.data.IterableDataset):
            owner = next((c for c in type(dataset).__mro__ if "__getitem__" in c.__dict__), None)
            if owner is not None and owner is not torch.utils.data.Dataset:
                self._set(owner, "__getitem__", self._timed_item(owner.__dict__["__getitem__"]))
        for path, holder, key, value in _transforms(dataset):
            if isinstance(value, (list, tuple)):
                timed = [_Timed(member, "%s[%d]" % (path, i), self)
                         for i, member in enumerate(value)]
                self._set(holder, key, timed if isinstance(value, list) else tuple(timed))
            else:
                self._set(holder, key, _Timed(value, path, self))
        return self.remove

    def remove(self):
        for undo in reversed(self._undo):
            undo()
        self._undo = []

    def _set(self, holder, key, value):
        """holder.key = value (holder[key] for a function's globals), undone by remove(). A
        holder that refuses (a read-only property) keeps its own."""
        if isinstance(holder, dict):
            original = holder[key]
            holder[key] = value
            self._undo.append(lambda: holder.__setitem__(key, original))
            return
        had = key in getattr(holder, "__dict__", {})
        original = getattr(holder, key)
        try:
            setattr(holder, key, value)
        except (AttributeError, TypeError):
            return
        if had or not isinstance(holder, type):
            self._undo.append(lambda: setattr(holder, key, original))
        else:
            self._undo.append(lambda: delattr(holder, key))

    # ---- measuring ---------------------------------------------------------------------------

    def _measuring(self):
        if not self._flag[0]:
            return None
        generation = int.from_bytes(self._flag[4:8], "little")
        if generation != self._generation:
            self._generation, self._sampled, self._items = generation, 0, 0
            self._described = set()
        return generation

    def _timed_fetch(self, original):
        pipeline = self

        def fetch(fetcher, index):
            generation = pipeline._measuring()
            if generation is None or pipeline._batch is not None:
                return original(fetcher, index)
            collate = fetcher.__dict__.get("collate_fn")
            if collate is not None and not isinstance(collate, _Timed):
                pipeline._set(fetcher, "collate_fn", _Timed(collate, "collate_fn", pipeline))
            batch = pipeline._batch = _Batch(generation, pipeline._worker)
            try:
                output = original(fetcher, index)
            finally:
                pipeline._batch = None
            batch.record["end"] = now()
            pipeline._sink(batch.record)
            return output

        return fetch

    def _timed_item(self, original):
        pipeline = self

        def getitem(dataset, index):
            batch = pipeline._batch
            if batch is None:
                return original(dataset, index)
            pipeline._items += 1
            sampler = None
            if pipeline._sampled < SAMPLES and pipeline._items % SAMPLE_EVERY == 0 and \
                    sys.gettrace() is None and sys.getprofile() is None:
                pipeline._sampled += 1
                batch.record["sampled"] += 1
                sampler = pipeline.sampler = LineSampler(batch.record["lines"],
                                                         batch.record["ops"])
            start = now()
            try:
                item = sampler.run(original, dataset, index) if sampler else \
                    original(dataset, index)
            finally:
                pipeline.sampler = None
            elapsed = now() - start
            batch.record["items"] += 1
            batch.record["items_ns"] += elapsed
            if sampler is not None:
                batch.record["sampled_ns"] += elapsed
            if "output" not in batch.record:
                array = main_array(item)
                batch.record["output"] = None if array is None else \
                    [[int(e) for e in array.shape], _dtype(array)]
            return item

        getitem.__wrapped__ = original
        return getitem

    def timed_call(self, transform, args, kwargs):
        """A transform's call: timed into the batch; described (shapes, dtype, whether its input is
        a mask in float) on its first call of the window."""
        batch = self._batch
        if batch is None:
            return transform.wrapped(*args, **kwargs)
        sampler = self.sampler
        if sampler is not None:
            sampler.enter_transform()
        start = now()
        try:
            output = transform.wrapped(*args, **kwargs)
        finally:
            elapsed = now() - start
            if sampler is not None:
                sampler.exit_transform()
        batch.add_piece(transform.path, elapsed)
        if transform.path not in self._described and sampler is None:
            self._described.add(transform.path)
            try:
                batch.record["described"][transform.path] = transform.describe(
                    args, output, sys._getframe(2))
            except Exception:  # noqa: BLE001 (an output the probe cannot read stays unread)
                pass
        return output


class _Timed:
    """A transform in the Dataset's place: calls go through the pipeline's clock; everything else
    reaches the transform itself."""

    def __init__(self, wrapped, path, pipeline):
        self.__dict__.update(wrapped=wrapped, path=path, _pipeline=pipeline)

    def __call__(self, *args, **kwargs):
        return self._pipeline.timed_call(self, args, kwargs)

    def __getattr__(self, name):
        return getattr(self.__dict__["wrapped"], name)

    def __setattr__(self, name, value):
        setattr(self.wrapped, name, value)

    def __reduce__(self):  # a Dataset pickled again (a nested loader) takes the transform itself
        return (_identity, (self.wrapped,))

    def describe(self, args, output, caller):
        code = _code_of(self.wrapped)
        array_in, array_out = worked_on(args, output)
        description = {"name": _name_of(self.wrapped),
                       "defined_at": _where(code) if code is not None and
                       is_user_file(code.co_filename) else None,
                       "called_at": _where(caller.f_code, caller.f_lineno)
                       if caller is not None and is_user_file(caller.f_code.co_filename) else None,
                       "input_shape": [int(e) for e in array_in.shape] if array_in is not None
                       else [],
                       "output_shape": [int(e) for e in array_out.shape]
                       if array_out is not None else [],
                       "dtype": _dtype(array_in) if array_in is not None else "",
                       "input_is_binary": _is_binary(array_in) if array_in is not None else None}
        return description


def _identity(value):
    return value


def _unwrapped(dataset):
    """The user's Dataset inside torch's own wrappers (Subset)."""
    for _ in range(4):
        inner = getattr(dataset, "dataset", None)
        if inner is None or not type(dataset).__module__.startswith("torch."):
            break
        dataset = inner
    return dataset


def _is_transform(value):
    if value is None or isinstance(value, (type, torch.Tensor, str, bytes, int, float, bool)):
        return False
    return type(value).__module__ != "numpy" and callable(value)


def _all_transforms(value):
    return isinstance(value, (list, tuple)) and bool(value) and all(map(_is_transform, value))


def _steps_of(transform):
    """A Compose-like transform's steps: (attribute, list or tuple) where exactly one attribute
    holds callables and its call reads that attribute, whatever its name: torchvision's
    `transforms`, a hand-written pipeline's `steps` or `ops`. Timing the steps, not the whole,
    keeps a blur before a crop apart from the crop. None for any other value, where two lists
    make the order a guess, and where the call never reads the list (a transform that keeps
    callbacks: its own work would go untimed)."""
    if not _is_transform(transform):
        return None
    lists = [(key, value) for key, value in getattr(transform, "__dict__", {}).items()
             if _all_transforms(value)]
    code = _code_of(transform)
    if len(lists) != 1 or code is None or lists[0][0] not in code.co_names:
        return None
    return lists[0]


def _transforms(dataset):
    """(path, holder, key, value) of each place the Dataset keeps its transforms: a callable
    attribute, a list or tuple of callables (a Compose-like object's steps included), and the
    user's functions that its __getitem__ calls by name (holder: their module's globals)."""
    found = []
    for name, value in list(getattr(dataset, "__dict__", {}).items()):
        steps = _steps_of(value)
        if steps is not None:
            key, members = steps
            found.append((name + "." + key, value, key, members))
        elif _all_transforms(value) or _is_transform(value):
            found.append((name, dataset, name, value))
    getitem = getattr(type(dataset), "__getitem__", None)
    code = getattr(getitem, "__code__", None)
    if code is not None and is_user_file(code.co_filename):
        namespace = getitem.__globals__
        for name in code.co_names:
            value = namespace.get(name)
            if type(value).__name__ == "function" and is_user_file(value.__code__.co_filename):
                found.append((name, namespace, name, value))
    return found


class WorkerInit:
    """The DataLoader's worker_init_fn while advisor's probe runs: the user's own first, then the
    instrumentation of this worker's copy of the Dataset. Picklable for spawned workers (they
    import this module from the probe's folder on sys.path)."""

    def __init__(self, original, folder):
        self.original = original
        self.folder = folder

    def __call__(self, worker_id):
        if self.original is not None:
            self.original(worker_id)
        try:
            info = torch.utils.data.get_worker_info()
            with open(os.path.join(self.folder, "flag"), "rb") as flag_file:
                flag = mmap.mmap(flag_file.fileno(), FLAG_BYTES, access=mmap.ACCESS_READ)
            out = open(os.path.join(self.folder, "worker-%d.jsonl" % os.getpid()), "a")
        except OSError:
            return  # advisor's run is over (its folder is gone): the worker runs unmeasured

        def sink(record):
            try:
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
                out.flush()
            except (OSError, ValueError):
                pass  # a record lost (a full disk) must not fail the script's batch

        try:
            Pipeline(info.dataset, flag, sink, worker_id + 1).install()
        except Exception:  # noqa: BLE001 (a Dataset the probe cannot instrument runs as it is)
            pass
