"""What torch's compiler did in the user's process (torch.compile): its graphs, its graph breaks
with the user's file and line, its recompilations with the guard that failed, the recompile limits
it hit and the seconds it compiled for; advisor's report has it as its `compile` section
(docs/report-schema.md). Nothing here changes what the compiler does: no compile setting is
touched; it reads torch's own counters and compilation metrics and listens to two of its logs.
It keeps the options of each torch.compile call on a module, with which regional.py compiles
that model's regions while a window measures inside it, and counts those compilations apart
(`regional`): they are advisor's, not the script's.

Graph breaks come from torch's `graph_breaks` log (the only place that names the user's line),
whose records are debug records: the probe lowers those loggers' level to debug and keeps their
records from the handlers above them (torch's own, which would print them on the script's stderr)
unless the user asked torch for them. The recompile limit's warning is torch's own and reaches the
user as before.

CUDA graphs (mode="reduce-overhead") come from torch's `cudagraphs` log (`cuda_graphs`): inductor's
cudagraph trees write a debug record for each capture ("Recording function=...") and for each
capture made again because a recorded graph's inputs no longer held ("Re-recording function=...,
reason=..."), and a warning for each graph it runs without CUDA graphs ("skipping cudagraphs due to
mutated inputs"). The probe listens to it from the first torch.compile call that asks for CUDA
graphs (mode "reduce-overhead" or "max-autotune", the `triton.cudagraphs` option or inductor's
config), importing the cudagraph trees' module then, as torch would at its first capture, for its
logger. It lowers those loggers' level to debug in the same way, keeping the debug records to
itself, and hands torch's handlers what they would have printed without it (the skip warnings)
unless the user asked for the log, whose records then reach them as torch sends them.
Every name inside torch that this reads is in `_dynamo_readings`, `_artifact_loggers` and the
patterns below, the places to change for another torch.
"""

import functools
import logging
import os
import re
import sys
import weakref

from .sources import line_text

# torch's graph break record: "Graph break in user code at FILE:LINE\nGraph Break Reason: ..."
# (or "Graph break (user stack suppressed due to duplicate graph break) in user code at ...").
_GRAPH_BREAK = re.compile(r"in user code at (.+):(\d+)\nGraph Break Reason: (.*?)(?:\nUser code "
                          r"traceback:|\Z)", re.S)
# What the reason's first line says of where dynamo was, not why it broke: the next line says why.
_TRACE_PREFIX = "Encountered graph break when attempting to trace"
_LIMIT_PREFIX = "torch._dynamo hit config."
# "'forward' (/path/train.py:12)", the limit warning's function.
_FUNCTION = re.compile(r"'(.*)' \((.+):(\d+)\)\Z")
_RESUME = re.compile(r"torch_dynamo_resume_in_(.+)_at_\d+\Z")
# torch's cudagraph trees' records (torch/_inductor/cudagraph_trees.py): "[%s] Recording
# function=%s, mode=%s, cuda_graph_id=%d, inputs: %s" and "[%s] Re-recording function=%s, mode=%s,
# reason=%s", their arguments the compile id, the function, the mode and (re-recording) the reason.
_RECORDING = "Recording function="
_RERECORDING = "Re-recording function="
# Every skip goes through this function of torch/_inductor/cudagraph_utils.py; its text is
# "skipping cudagraphs due to REASON" (or "disabling cudagraphs due to ...", or the reason alone),
# the reason often followed by ". Found from :" and the stack of the line that caused it.
_SKIP_FUNCTION = "log_cudagraph_skip_and_bump_counter"
_SKIP_PREFIX = re.compile(r"^(?:skipping|disabling) cudagraphs? (?:for backward )?due to ")
_FOUND_FROM = re.compile(r"\.?\s*Found from.*", re.S)
# What the probe keeps of each text and path, and of each list: advisor refuses more
# (engine/script/compile_message.cpp).
TEXT_BYTES = 400
PATH_BYTES = 4096
MAX_ENTRIES = 64
MAX_SCRIPT_ENTRIES = 4096  # the script's compilations held; a script recompiling forever stops here


def _short(text, limit=TEXT_BYTES):
    """The first line of `text`, at most `limit` bytes of it, without control characters and with
    its runs of spaces one space (advisor shows it on one line)."""
    line = " ".join("".join(c if c >= " " else " " for c in text.strip().split("\n", 1)[0])
                    .split())
    return line.encode("utf-8")[:limit].decode("utf-8", "ignore")


def break_reason(reason):
    """The reason's line that says why dynamo broke the graph ("Unsupported Tensor.item() call
    with capture_scalar_outputs=False"), not the bytecode it was tracing."""
    lines = [line.strip() for line in reason.strip().split("\n") if line.strip()]
    if len(lines) > 1 and lines[0].startswith(_TRACE_PREFIX):
        lines = lines[1:]
    return _short(lines[0]) if lines else ""


def parse_graph_break(message):
    """(file, line, reason) of one graph break record's text; None for another record."""
    match = _GRAPH_BREAK.search(message)
    if match is None:
        return None
    return _short(match.group(1), PATH_BYTES), int(match.group(2)), break_reason(match.group(3))


def graph_break_entry(file, line, reason, count):
    """One graph break as advisor reads it, with its line's code for the finding's source ("" where
    the file cannot be read)."""
    return {"reason": reason, "file": file, "line": line, "text": _short(line_text(file, line)),
            "count": count}


def parse_limit_hit(args):
    """{"function", "file", "line", "limit"} of the recompile limit's warning (its arguments:
    the limit's name, its value, the function, the last reason); None for another warning."""
    if not isinstance(args, tuple) or len(args) < 3:
        return None
    match = _FUNCTION.match(str(args[2]))
    if match is None:
        return None
    limit = args[1] if isinstance(args[1], int) and not isinstance(args[1], bool) else 0
    return {"function": _short(match.group(1)), "file": _short(match.group(2), PATH_BYTES),
            "line": int(match.group(3)), "limit": limit}


def parse_skip(message):
    """The reason of a CUDA graph skip's text ("mutated inputs (1 instances)"): its first line
    without torch's prefix and the stack after it."""
    return _short(_FOUND_FROM.sub("", _SKIP_PREFIX.sub("", message.strip(), count=1), count=1))


def _artifact_loggers(artifact):
    """torch's loggers of one log artifact (`graph_breaks`, `cudagraphs`; torch 2.1 onwards) and
    whether the user asked for it (TORCH_LOGS); [] where this torch has none."""
    try:
        from torch._logging._internal import log_registry, log_state
    except ImportError:
        return [], False
    loggers = [logging.getLogger(name) for name in log_registry.get_artifact_log_qnames()]
    asked = log_state.is_artifact_enabled(artifact)
    return [log for log in loggers if getattr(log, "artifact_name", "") == artifact], asked


def _metrics():
    """torch's compilation metrics (its last 64 compilations), [] where it keeps none."""
    from torch._dynamo import utils
    metrics = getattr(utils, "get_compilation_metrics", None)
    return list(metrics()) if metrics is not None else []


def _unique_graphs():
    from torch._dynamo import utils
    return int(utils.counters["stats"].get("unique_graphs", 0))


def _seconds(entry):
    """A compilation's seconds: a frame's (dynamo and the backend's forward compile), or a backward
    graph's, which is compiled at its first backward and has no frame of its own."""
    if getattr(entry, "is_forward", True) is False:
        return (getattr(entry, "duration_us", None) or 0) / 1e6
    return getattr(entry, "entire_frame_compile_time_s", None) or 0.0


def _dynamo_readings(entries):
    """(graphs, frames): the number of graphs dynamo compiled, and one dict per entry of torch's
    compilation metrics in `entries`: function, file, line, the failed guard of a recompilation,
    and the seconds it took. None where this torch keeps neither."""
    try:
        from torch._dynamo import utils  # noqa: F401
    except ImportError:  # torch 1.x: no compiler
        return None
    frames = []
    for entry in entries:
        if getattr(entry, "is_forward", True) is False:
            frames.append({"seconds": _seconds(entry)})
            continue
        frames.append({"function": getattr(entry, "co_name", None) or "",
                       "file": getattr(entry, "co_filename", None) or "",
                       "line": getattr(entry, "co_firstlineno", None) or 0,
                       "recompile_reason": getattr(entry, "recompile_reason", None),
                       "seconds": _seconds(entry)})
    return _unique_graphs(), frames


def _function(name):
    """The user's function of a compiled frame: dynamo names the code after a graph break
    `torch_dynamo_resume_in_forward_at_61`, which is forward's, from line 61 (the frame's line)."""
    match = _RESUME.match(name)
    return _short(match.group(1) if match else name)


def _guard(reason):
    """The failed guard of a recompile reason ("1/0: tensor 'x' size mismatch at index 0.
    expected 4, actual 6"), without the compile id before it."""
    text = _short(reason)
    return re.sub(r"^\d+/\d+: ", "", text)


def _not_the_users(path):
    """Whether `path` is torch's code or the probe's, not the script's: torch.compile wraps the
    model's forward in a frame of its own (`inner`, torch/_dynamo/external_utils.py) that
    recompiles with it on the same guard, and dynamo compiles the probe's module hooks (which do
    nothing while it traces) and recompiles them for a hook of another signature."""
    import torch
    path = os.path.abspath(path)
    return any(path.startswith(os.path.dirname(os.path.abspath(package.__file__)) + os.sep)
               for package in (torch, sys.modules[__package__]))


def _asks_for_cuda_graphs(options):
    """Whether a torch.compile call's options, or inductor's configuration, capture CUDA graphs
    (inductor's cudagraph trees)."""
    if options.get("mode") in ("reduce-overhead", "max-autotune") or \
            (options.get("options") or {}).get("triton.cudagraphs"):
        return True
    config = sys.modules.get("torch._inductor.config")  # read where the script imported it
    return bool(getattr(getattr(config, "triton", None), "cudagraphs", False))


class _Records(logging.Handler):
    def __init__(self, recorder):
        super().__init__(logging.DEBUG)
        self._recorder = recorder
        self.detached = set()  # loggers kept from torch's handlers that still owe them records

    def emit(self, record):
        try:
            self._recorder.heard(record)
        except Exception:  # noqa: BLE001 (a log record must never fail the user's compile)
            pass
        log = logging.getLogger(record.name)
        if log in self.detached and not log.propagate and log.parent is not None and \
                record.levelno >= log.parent.getEffectiveLevel():
            # What torch's handlers would have had without the probe's lowered level: the
            # cudagraphs log's warnings (its skips), not its debug records.
            log.parent.handle(record)


class _CudaGraphs:
    """The script's CUDA graph captures and skips, as torch's cudagraphs log tells them."""

    def __init__(self, step):
        self._step = step  # the index of the script's step in progress
        self.recordings = 0
        self.functions = {}  # (compile id, function, mode) -> what its records said
        self.skipped = {}  # reason -> times
        self.windows_ended = 0  # advisor's regional windows ended so far

    def heard(self, record):
        message = record.msg if isinstance(record.msg, str) else ""
        if record.levelno >= logging.WARNING and record.funcName == _SKIP_FUNCTION:
            reason = parse_skip(record.getMessage())
            if reason in self.skipped or len(self.skipped) < MAX_ENTRIES:
                self.skipped[reason] = self.skipped.get(reason, 0) + 1
            return
        args = record.args if isinstance(record.args, tuple) else ()
        again = _RERECORDING in message
        if not (again or _RECORDING in message) or len(args) < 3:
            return
        key = (str(args[0]), _short(str(args[1])), _short(str(args[2])).lower())
        function = self.functions.get(key)
        if again:  # the recording record follows it: this one only says why
            if function is not None:
                function["rerecordings"] += 1
                function["rerecord_reason"] = _short(str(args[3])) if len(args) > 3 else ""
            return
        self.recordings += 1
        step = self._step()
        if function is None:
            if len(self.functions) < MAX_ENTRIES:
                self.functions[key] = {"recordings": 1, "first_step": step, "steps": {step},
                                       "window": self.windows_ended, "rerecordings": 0,
                                       "rerecord_reason": ""}
            return
        function["recordings"] += 1
        if function["window"] != self.windows_ended:
            # Its first capture since one of advisor's windows, whose own graphs ran in between:
            # not counted as the script's steady state.
            function["window"] = self.windows_ended
            function["after_window"] = step
        elif step != function.get("after_window"):
            function["steps"].add(step)

    def report(self):
        if self.recordings == 0 and not self.skipped:
            return None
        return {
            "recordings": self.recordings,
            "step": self._step(),
            "functions": [{"function": function, "mode": mode, "recordings": entry["recordings"],
                           "first_step": entry["first_step"],
                           "later_steps": sum(1 for step in entry["steps"]
                                              if step > entry["first_step"]),
                           "rerecordings": entry["rerecordings"],
                           "rerecord_reason": entry["rerecord_reason"]}
                          for (_, function, mode), entry in self.functions.items()],
            "skipped": [{"reason": reason, "count": count}
                        for reason, count in self.skipped.items()],
        }


class CompileRecorder:
    """Listens from the first torch.compile call on; `report()` is what advisor's `compile`
    section holds, None until torch has compiled something."""

    def __init__(self, step=lambda: 0, provenance=None):
        """`step`: the index of the script's step in progress (the session's clock);
        `provenance`: a ProvenanceRecorder (provenance.py) installed with the first torch.compile
        call and paused while a window compiles regions, whose graphs are advisor's."""
        self._provenance = provenance
        self._breaks = {}  # (file, line, reason) -> times dynamo met it
        self._cuda_graphs = _CudaGraphs(step)
        self._handler = _Records(self)
        self._cuda_graph_trees = False  # listening to the cudagraph trees' log
        self._limits = {}  # (function, file, line) -> the limit's record
        self._listening = False
        self._last = None  # the record heard last
        self._compile = None  # torch's own torch.compile, for the regions (regional.py)
        self._options = weakref.WeakKeyDictionary()  # compiled module -> its torch.compile options
        self._regional = None  # while a window compiles regions: what the compiler held before
        self._regional_entries = []  # torch's metrics entries of regional compilations
        # The script's own entries, held: torch keeps only its last 64 compilations, and a
        # window's regions (a forward and a backward entry each) push the script's out.
        self._script_entries = []
        self._regional_graphs = 0
        self._regional_levels = []  # the parents whose children were measured as regions
        self._regional_s = 0.0
        self._regional_compilations = 0
        self._in_measured_steps = 0  # regional compilations after a window's warm-up
        self._eager_regions = {}  # path -> why dynamo could not compile it alone

    def wrap(self, torch_module):
        """Listens from the script's first torch.compile call (torch imports its compiler then:
        listening earlier would import it into every script)."""
        original = getattr(torch_module, "compile", None)
        if original is None:  # torch 1.x
            return
        recorder = self

        self._compile = original

        @functools.wraps(original)
        def compile(*args, **kwargs):
            recorder.listen(_asks_for_cuda_graphs(kwargs))
            compiled = original(*args, **kwargs)
            if args and isinstance(args[0], torch_module.nn.Module) and \
                    isinstance(compiled, torch_module.nn.Module):
                # The options a region of this model is compiled with (regional.py).
                recorder._options[compiled] = dict(kwargs)
            return compiled

        torch_module.compile = compile

    def options_of(self, compiled_module):
        """The torch.compile options the script compiled `compiled_module` with, or None where
        it was compiled another way (Module.compile(), torch._dynamo.optimize)."""
        return self._options.get(compiled_module)

    def compile_function(self, function, options):
        """`function` compiled as the script's own torch.compile call would, unrecorded."""
        return self._compile(function, **options)

    def listen(self, cuda_graphs=False):
        """Listens to torch's logs from now on; with `cuda_graphs`, to the cudagraph trees' log
        too, whose module torch imports only when it first captures a graph."""
        if not self._listening:
            self._listening = True
            import torch._dynamo  # noqa: F401 (registers the loggers listened to)
            logging.getLogger("torch._dynamo.convert_frame").addHandler(self._handler)
            self._attach("graph_breaks")
            if self._provenance is not None:
                try:
                    self._provenance.install()
                except Exception:  # noqa: BLE001 (a torch without inductor's hooks: no tables)
                    self._provenance = None
        if cuda_graphs and not self._cuda_graph_trees:
            self._cuda_graph_trees = True
            try:
                import torch._inductor.cudagraph_trees  # noqa: F401 (registers its logger)
            except ImportError:  # a torch without cudagraph trees
                pass
            self._attach("cudagraphs")

    def _attach(self, artifact):
        loggers, asked = _artifact_loggers(artifact)
        for log in loggers:
            if self._handler in log.handlers:
                continue
            log.setLevel(logging.DEBUG)
            if not asked and log.propagate:
                log.propagate = False
                self._handler.detached.add(log)
            log.addHandler(self._handler)

    def heard(self, record):
        # Where TORCH_LOGS asked for graph_breaks, a record also reaches the handler on its
        # parent torch._dynamo.convert_frame: one record is one break met.
        if record is self._last or self._regional is not None:
            return  # a region's graph break is one the script's compilation met already
        self._last = record
        artifact = getattr(logging.getLogger(record.name), "artifact_name", "")
        if artifact == "cudagraphs":
            self._cuda_graphs.heard(record)
            return
        text = record.msg if isinstance(record.msg, str) else ""
        if text.startswith(_LIMIT_PREFIX):
            hit = parse_limit_hit(record.args)
            if hit is not None and len(self._limits) < MAX_ENTRIES:
                self._limits.setdefault((hit["function"], hit["file"], hit["line"]), hit)
            return
        if artifact != "graph_breaks":
            return
        found = parse_graph_break(record.getMessage())
        if found is not None and (found in self._breaks or len(self._breaks) < MAX_ENTRIES):
            self._breaks[found] = self._breaks.get(found, 0) + 1

    # ---- regional compilation (regional.py): counted apart from the script's own ---------------

    def _keep_script_entries(self):
        """Holds the entries of torch's metrics that are the script's own: those neither a
        region's nor compiled inside an open window (which regional_ends claims)."""
        theirs = {id(entry) for entry in self._script_entries}
        theirs.update(id(entry) for entry in self._regional_entries)
        before_window = self._regional["entries"] if self._regional is not None else None
        for entry in _metrics():
            if id(entry) in theirs or (before_window is not None and
                                       id(entry) not in before_window):
                continue
            if len(self._script_entries) < MAX_SCRIPT_ENTRIES:
                self._script_entries.append(entry)

    def provenance_tables(self):
        """The kernel tables of the script's own inductor graphs; None where none was recorded."""
        tables = self._provenance.tables() if self._provenance is not None else []
        return tables or None

    def regional_starts(self, parent):
        self._keep_script_entries()
        if self._provenance is not None:
            self._provenance.paused = True
        self._regional = {"entries": {id(entry) for entry in _metrics()},
                          "graphs": _unique_graphs(), "warm": None}
        if parent not in self._regional_levels and len(self._regional_levels) < MAX_ENTRIES:
            self._regional_levels.append(parent)

    def regional_warmed(self):
        """The window's warm-up step is over: a compilation from now on lands in measured
        steps."""
        if self._regional is not None:
            self._regional["warm"] = {id(entry) for entry in _metrics()}

    def regional_ends(self):
        before, warm = self._regional["entries"], self._regional["warm"]
        current = _metrics()
        new = [entry for entry in current if id(entry) not in before]
        self._regional_s += sum(_seconds(entry) for entry in new)
        self._regional_compilations += sum(1 for entry in new
                                           if getattr(entry, "is_forward", True) is not False)
        if warm is not None:
            self._in_measured_steps += sum(1 for entry in new if id(entry) not in warm)
        self._regional_graphs += _unique_graphs() - self._regional["graphs"]
        # Kept (so their ids stay theirs) while torch's metrics hold them.
        live = {id(entry) for entry in current}
        self._regional_entries = [entry for entry in self._regional_entries
                                  if id(entry) in live] + new
        self._regional = None
        self._cuda_graphs.windows_ended += 1
        if self._provenance is not None:
            self._provenance.paused = False

    def region_runs_eagerly(self, path, reason):
        if path in self._eager_regions or len(self._eager_regions) < MAX_ENTRIES:
            self._eager_regions[path] = _short(reason)

    def _regional_report(self):
        if not self._regional_levels:
            return None
        return {"levels": list(self._regional_levels),
                "compilations": self._regional_compilations,
                "compile_s": self._regional_s,
                "in_measured_steps": self._in_measured_steps,
                "eager": [{"path": path, "reason": reason}
                          for path, reason in self._eager_regions.items()]}

    def report(self):
        if not self._listening:
            return None
        self._keep_script_entries()
        readings = _dynamo_readings(self._script_entries)
        if readings is None:
            return None
        graphs, frames = readings
        graphs -= self._regional_graphs
        if graphs == 0 and not frames and not self._breaks and not self._regional_levels:
            return None
        recompiles = {}
        for frame in frames:
            reason = frame.get("recompile_reason")
            if not reason or _not_the_users(frame["file"]):
                continue
            key = (_function(frame["function"]), _short(frame["file"], PATH_BYTES), frame["line"],
                   _guard(reason))
            recompiles[key] = recompiles.get(key, 0) + 1
        return {
            "graphs": graphs,
            "graph_breaks": [graph_break_entry(file, line, reason, count)
                             for (file, line, reason), count in self._breaks.items()],
            "recompiles": [{"function": function, "file": file, "line": line, "guard": guard,
                            "count": count}
                           for (function, file, line, guard), count in
                           list(recompiles.items())[:MAX_ENTRIES]],
            "recompile_limit_hits": list(self._limits.values()),
            "compilations": sum(1 for frame in frames if "function" in frame),
            "compile_s": sum(frame["seconds"] for frame in frames),
            "regional": self._regional_report(),
            "cuda_graphs": self._cuda_graphs.report(),
        }
