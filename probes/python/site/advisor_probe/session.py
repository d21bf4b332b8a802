"""The probe's life in the user's process: step detection, model discovery, and carrying out the
controller's commands at step boundaries (docs/script-mode.md, "The protocol").

Outside windows the probe costs a few Python calls per step: a hook on the model's forward, a
wrapper around torch.autograd.backward and one around the optimizer's step. Everything else
(marker hooks, the native recorder, CUPTI, device synchronisation) is on only for the steps a
window measures.
"""

import atexit
import functools
import importlib
import json
import os
import sys
import time
import weakref

import torch

from advisor_probe import call_inputs
from advisor_probe.compile_report import CompileRecorder
from advisor_probe.provenance import ProvenanceRecorder
from advisor_probe.regional import RegionalCompiler
from advisor_probe.device_clock import DeviceStamps
from advisor_probe import modules as module_tree
from advisor_probe.input_stage import InputStage
from advisor_probe.knobs import physical_cores
from advisor_probe.loader_epochs import LoaderEpochs
from advisor_probe.loader_hook import LoaderHook
from advisor_probe.markers import Markers
from advisor_probe import out_of_memory
from advisor_probe import own_sync
from advisor_probe import owners
from advisor_probe.sources import LineLabels, SourceCapture, line_text
from advisor_probe.steps import StepClock
from advisor_probe.training_state import TrainingState

now = time.monotonic_ns

try:  # torch 2.3 and newer; TorchDynamo folds the call to True while it traces a hook
    from torch.compiler import is_compiling
except ImportError:
    try:
        from torch._dynamo import is_compiling
    except ImportError:  # torch 1.x: nothing compiles
        def is_compiling():
            return False


def _autocast_enabled(device):
    try:  # torch 2.4 and newer take the device type
        return torch.is_autocast_enabled(device)
    except TypeError:  # torch 1.x and early 2.x: one call per device
        return torch.is_autocast_enabled() if device == "cuda" else torch.is_autocast_cpu_enabled()


def _autocast_dtype(device):
    if hasattr(torch, "get_autocast_dtype"):  # torch 2.4 and newer
        return torch.get_autocast_dtype(device)
    return torch.get_autocast_gpu_dtype() if device == "cuda" else torch.get_autocast_cpu_dtype()


# The training frameworks advisor names when it cannot follow a script's training: what the
# script trained through is where its user looks (docs/script-mode.md, "Trainers").
# The instances holding the most of what the graphs kept for backward at an out-of-memory error
# that the report names: a model's blocks and their parts, bounded as advisor reads them.
KEPT_INSTANCES = 64
FRAMEWORKS = ("transformers", "lightning", "pytorch_lightning", "accelerate", "deepspeed")


def imported_frameworks(modules):
    """["lightning 2.6.6", ...]: those of FRAMEWORKS in `modules` (sys.modules), with their
    versions where they say one."""
    found = []
    for name in FRAMEWORKS:
        module = modules.get(name)
        if module is not None:
            version = getattr(module, "__version__", None)
            found.append("%s %s" % (name, version) if isinstance(version, str) else name)
    return found


def _end_interpreter(loader_iterators, input_stage=None):
    """Ends the script where it stands, without running its own code (its finally blocks or atexit
    handlers could save checkpoints). Its DataLoaders' workers are shut down first, as the
    loaders themselves would: a worker killed instead leaves its temporary folder (/tmp/pymp-*,
    where it shared tensors) behind."""
    for iterator in list(loader_iterators):
        try:
            shutdown = getattr(iterator, "_shutdown_workers", None)
            if shutdown is not None:
                shutdown()
        except Exception:  # noqa: BLE001 (clean-up is best effort; the exit is not)
            pass
    if input_stage is not None:
        input_stage.close()
    os._exit(0)


def _reported(method):
    """The probe's own failure inside a hook must not surface as the user's traceback, nor leave
    the script running half-instrumented: advisor gets one line and the interpreter ends."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception as error:  # noqa: BLE001 (anything from the probe's own code)
            if not self._active():
                raise
            self._fatal("advisor's probe failed in %s: %s: %s"
                        % (method.__name__.strip("_"), type(error).__name__, error))

    return guarded


class _Command:
    """A command being carried out: the steps it measures come after the step in progress when it
    arrived (that one warms the new hooks up) and after `skip` more. advisor names the first by
    its index ("first"), the same on every rank of a job, so that the ranks measure the same
    steps."""

    def __init__(self, message, step_in_progress):
        self.message = message
        self.op = message.get("op")
        self.steps = int(message.get("steps", 0))
        self.first = int(message.get("first", step_in_progress + 1 + int(message.get("skip", 0))))
        self.last = self.first + self.steps - 1
        self.spans = []
        self.device_spans = []  # the same steps on the device's clock (a timing window on a GPU)
        self.recording = False
        self.allocated_at_start = 0  # the CUDA allocator's bytes as the recording began
        self.losses = {}  # step index -> its losses (detached), while recording
        self.undo = []  # what to remove when the command is done

    @property
    def records(self):
        return self.op in ("record", "source")

    def measures(self, index):
        return self.first <= index <= self.last


class Session:
    """`channel` is advisor's (bisect mode) or None (bench mode: `bench` and `knobs` given)."""

    def __init__(self, channel, bench=None, knobs=None):
        self._channel = channel
        self._bench = bench
        self._knobs = knobs
        self._pid = os.getpid()
        self._clock = StepClock()
        self._optimizers = []
        self._candidates = []      # modules called outermost during the first step
        self._first_inputs = {}    # id(candidate) -> its first training call's _input_of
        self._held = {}            # modules the frames calling the candidates held (owners.py)
        self._depth = 0
        self._in_backward = False
        self._evaluating = False   # a call of the model between steps without gradients
        self._discovery = []       # global hook handles, until the model is known
        self._tree = None
        self._command = None
        self._cuda = False
        # The model's GPU, named in every CUDA call: a rank that puts its model on cuda:1 without
        # torch.cuda.set_device has device 0 current, and a bare synchronize() there would wait for
        # nothing of its own (and give it a context on rank 0's GPU) while rank 0's waits for its
        # own work: the ranks' profiled steps would differ by the probe alone.
        self._device = None
        self._sync_phases = False  # in the measured steps of the baseline's profiled window
        self._stamps = None        # CUDA events at the clock's boundaries, in a timing window
        self._input = {}
        self._loader = None
        self._loader_iterators = weakref.WeakSet()  # to shut their workers down at the end
        self._input_stage = None   # the DataLoaders' pipeline, measured where advisor asks
        self._epochs = None        # what starting an epoch costs the training loop's DataLoader
        self._sources = set()      # (file, line) labelled by a source capture
        self._loss_labels = None   # the loss's lines labelled, for a source command on the loss
        self._awaiting_command = False  # the model is described; the next boundary asks advisor
        self._training_state = TrainingState()
        # What torch.compile did: each reply carries it so far; its CUDA graphs by step. Its
        # kernels' provenance only where advisor bisects: the recorder's post-grad pass is a plain
        # function, which inductor's FX graph cache cannot key, and the autotest's rounds of a
        # compiled candidate (bench mode) are to be served by that cache.
        self._compile = CompileRecorder(lambda: self._clock.in_progress,
                                        ProvenanceRecorder() if channel is not None else None)
        self._regional = RegionalCompiler(self._compile)  # a window's regions in a compiled model

    # ---- set-up --------------------------------------------------------------------------

    def start(self):
        if self._knobs is not None:
            self._knobs.at_import()
        self._wrap_optimizers()
        self._wrap_backward()
        self._track_data_loaders()
        if self._channel is not None:
            self._compile.wrap(torch)
        mod = importlib.import_module("torch.nn.modules.module")
        self._discovery = [mod.register_module_forward_pre_hook(self._discover_enter),
                           mod.register_module_forward_hook(self._discover_exit)]
        os.register_at_fork(after_in_child=self._forked)
        atexit.register(self._at_exit)

    def _active(self):
        return os.getpid() == self._pid and (self._channel is not None or self._bench is not None)

    def _measuring(self):
        """The step in progress is one the command being carried out measures."""
        command = self._command
        return command is not None and self._active() and command.measures(self._clock.in_progress)

    def _wrap_optimizers(self):
        optimizer_module = importlib.import_module("torch.optim.optimizer")
        if hasattr(optimizer_module, "register_optimizer_step_pre_hook"):
            optimizer_module.register_optimizer_step_pre_hook(
                lambda optimizer, args, kwargs: self._optimizer_starts(optimizer))
            optimizer_module.register_optimizer_step_post_hook(
                lambda optimizer, args, kwargs: self._optimizer_ends())
            return
        # torch 1.x: no global step hooks; wrap each optimizer class's step once, when the first
        # instance is made.
        session = self
        original_init = torch.optim.Optimizer.__init__

        @functools.wraps(original_init)
        def init(optimizer, *args, **kwargs):
            original_init(optimizer, *args, **kwargs)
            cls = type(optimizer)
            if getattr(cls.step, "_advisor_wrapped", False):
                return
            step = cls.step

            @functools.wraps(step)
            def wrapped_step(self, *args, **kwargs):
                session._optimizer_starts(self)
                try:
                    return step(self, *args, **kwargs)
                finally:
                    session._optimizer_ends()

            wrapped_step._advisor_wrapped = True
            cls.step = wrapped_step

        torch.optim.Optimizer.__init__ = init

    def _wrap_backward(self):
        original = torch.autograd.backward
        session = self

        @functools.wraps(original)
        def backward(*args, **kwargs):
            session._backward_starts(args[0] if args else kwargs.get("tensors"))
            try:
                return original(*args, **kwargs)
            finally:
                session._backward_ends()

        torch.autograd.backward = backward

    def _track_data_loaders(self):
        data = importlib.import_module("torch.utils.data")
        loader_class = data.DataLoader
        original_iter = loader_class.__iter__
        session = self
        # Epochs are measured for advisor's windows (bisect mode), through the iterators' private
        # base class: a torch without it goes without the measurement.
        iterator_class = getattr(importlib.import_module("torch.utils.data.dataloader"),
                                 "_BaseDataLoaderIter", None)
        if self._channel is not None and iterator_class is not None:
            self._epochs = LoaderEpochs(self._measuring, data.IterableDataset)
        # The blocks' loader waits, queue and epochs' starts (loader_waits.py): bench mode's
        # listener of the same hook (loader_hook.py), where bisect mode's is the epochs'.
        waits = self._bench.loader_waits if self._bench is not None else None
        listeners = [listener for listener in (self._epochs, waits) if listener is not None]
        hook = LoaderHook(listeners) if listeners and iterator_class is not None else None
        if hook is not None:
            hook.install(iterator_class)

        @functools.wraps(original_iter)
        def iterate(loader):
            session._loader = {"workers": int(loader.num_workers),
                               "pin_memory": bool(loader.pin_memory)}
            restore = session._stage_workers(loader)
            started = now()
            try:
                iterator = original_iter(loader)
            finally:
                restore()
            if hook is not None and session._active():
                hook.iterated(loader, iterator, now() - started)
            try:
                session._loader_iterators.add(iterator)
            except TypeError:  # an iterator that takes no weak reference is not a worker pool
                pass
            return iterator

        loader_class.__iter__ = iterate

    def _stage_workers(self, loader):
        """The loader's workers carry the input stage's probe (bisect mode only)."""
        if self._channel is None or not self._active():
            return lambda: None
        if self._input_stage is None:
            self._input_stage = InputStage(self._channel.folder)
        return self._input_stage.iterating(loader)

    def _forked(self):
        # A DataLoader worker or any other fork: it must not record, send or hold the channel.
        self._pid = -1
        if self._command is not None and self._command.recording:
            torch.ops.advisor.probe_abandon()
        if self._channel is not None:
            try:
                self._channel.close()
            except OSError:
                pass
        self._channel = None

    def _at_exit(self):
        if not self._active():
            return
        command = self._command
        if command is not None and command.recording:
            # The script ended inside a window: its recording is dropped now, while torch is
            # whole. Left to the library's static destructors, the memory reporter the window
            # installed was taken off a thread-local state that torch had already destroyed, and
            # the interpreter died of a segmentation fault on its way out.
            torch.ops.advisor.probe_abandon()
            command.recording = False
        if self._bench is not None:
            error = getattr(sys, "last_value", None)
            if out_of_memory.is_out_of_memory(error):
                self._bench.out_of_memory(self._where_out_of_memory(error, sys.last_traceback))
            elif not self._bench.script_ended():
                sys.stderr.write("advisor probe: the script ended after %d steps, before the "
                                 "benchmark's end\n" % self._clock.completed)
            return
        # Python sets sys.last_value once it has printed an uncaught exception's traceback, before
        # the atexit handlers run: advisor says "its error is above" only then.
        self._send({"type": "ended", "steps": self._clock.completed,
                    "optimizer_seen": bool(self._optimizers), "model_seen": self._tree is not None,
                    "frameworks": imported_frameworks(sys.modules),
                    "raised": hasattr(sys, "last_value"),
                    "out_of_memory": self._out_of_memory(getattr(sys, "last_value", None),
                                                         getattr(sys, "last_traceback", None))})

    def _out_of_memory(self, error, traceback):
        """What advisor reports of an uncaught out-of-memory error (out_of_memory.py); None for
        any other end."""
        if error is None or not out_of_memory.is_out_of_memory(error):
            return None
        tree = self._tree_at_failure(traceback)
        paths = {id(m): p for p, m in tree.by_path.items()} if tree is not None else {}
        if not self._input:
            call = out_of_memory.outermost_call(traceback)
            if call is not None:
                self._note_input(*call)
            elif tree is not None and "" in tree.by_path:  # a first step's backward
                self._input = self._first_inputs.get(id(tree.by_path[""])) or {}
        if self._optimizers:
            self._training_state.measure(self._optimizers)
        device = self._device
        if device is None and torch.cuda.is_available() and torch.cuda.is_initialized():
            device = torch.device("cuda", torch.cuda.current_device())
        parameter_paths = module_tree.parameter_paths(tree)
        report = out_of_memory.where(traceback, lambda module: paths.get(id(module)),
                                     self._clock.phase, parameter_paths)
        report.update({"message": out_of_memory.message_of(error),
                       "allocator": out_of_memory.allocator(
                           device.index if device is not None else None),
                       "training_state": self._training_state.describe(),
                       "torch": torch.__version__,
                       "device": "cuda" if device is not None else "cpu",
                       "input": self._input})
        # After the allocator is read: a tensor saved through a hook (checkpoint's) is unpacked to
        # be measured, which may run a forward again.
        report["kept_for_backward"] = out_of_memory.kept_for_backward(
            traceback, parameter_paths, module_tree.parameters(tree))[:KEPT_INSTANCES]
        return report

    def _where_out_of_memory(self, error, traceback):
        """Where a bench run ran out of memory and torch's words, in one line."""
        tree = self._tree_at_failure(traceback)
        paths = {id(m): p for p, m in tree.by_path.items()} if tree is not None else {}
        place = out_of_memory.where(traceback, lambda module: paths.get(id(module)),
                                    self._clock.phase, module_tree.parameter_paths(tree))
        return out_of_memory.one_line(place, out_of_memory.message_of(error))

    def _tree_at_failure(self, traceback):
        """The model's tree, or before the model is known (its first step) the tree of the
        outermost module on the stack, else (a first backward: no module is) of the modules the
        step called; None where none was."""
        if self._tree is not None:
            return self._tree
        call = out_of_memory.outermost_call(traceback)
        if call is not None:
            return module_tree.ModuleTree([call[0]])
        roots = module_tree.choose_roots(self._outermost_candidates(),
                                         module_tree.parameter_ids(self._optimizers))
        return self._tree_of(roots) if roots else None

    def _tree_of(self, roots):
        """The roots' tree: where several are called (a training_step that calls
        `self.encoder` and `self.head`), named as the one module holding them all spells them
        (`encoder.2`, owners.py); else, and where none or several hold them all, by the roots'
        own names."""
        owner = owners.common_owner(roots, self._held) if len(roots) > 1 else None
        return module_tree.ModuleTree([owner] if owner is not None else roots,
                                      regional=self._compile_options_known)

    def _compile_options_known(self, compiled_module):
        """Whether advisor can measure inside `compiled_module` by compiling its regions
        (regional.py): the script compiled it with torch.compile, whose options the probe saw."""
        return self._compile.options_of(compiled_module) is not None

    # ---- what the script does --------------------------------------------------------------

    @_reported
    def _optimizer_starts(self, optimizer):
        if not self._active():
            return
        if not any(o is optimizer for o in self._optimizers):
            self._optimizers.append(optimizer)
        self._pause_loss_labels()
        self._sync_if(self._sync_phases)
        self._clock.optimizer_starts(self._tick())

    @_reported
    def _optimizer_ends(self):
        if not self._active():
            return
        command = self._command
        completed = self._clock.completed
        measured = (command is not None and command.first - 1 <= completed <= command.last) or \
            (self._bench is not None and completed >= self._bench.first_measured - 1)
        # The step's end: device work included where a window measures it. Bench mode's steps are
        # timed by CUDA events instead, which leave the device's queue as the script keeps it
        # (device_steps.py).
        on_device = measured and self._bench is not None and self._bench.times_on_device
        self._sync_if(measured and not on_device)
        self._depth = 0
        if self._tree is None:
            self._training_state.measure(self._optimizers)
        if self._knobs is not None:
            self._knobs.optimizer_stepped()
        end_ns = self._tick()
        if on_device:
            self._bench.step_ends(end_ns)
        self._clock.optimizer_ends(end_ns)
        # The next step is the window's first: record from here, so that its data phase is in.
        if command is not None and command.records and not command.recording and \
                self._clock.completed + 1 == command.first:
            self._start_recording(command)

    @_reported
    def _backward_starts(self, tensors):
        if not self._active():
            return
        if self._bench is not None:
            self._bench.backward(tensors)
        if self._epochs is not None:
            self._epochs.trained()
        command = self._command
        if command is not None and command.recording and isinstance(tensors, torch.Tensor) \
                and tensors.numel() == 1:
            # Read after the window, never inside it: a read waits for the device.
            command.losses.setdefault(self._clock.completed, []).append(tensors.detach())
        self._pause_loss_labels()
        self._sync_if(self._sync_phases)
        self._in_backward = True
        self._clock.backward_starts(self._tick())

    @_reported
    def _backward_ends(self):
        if not self._active():
            return
        self._sync_if(self._sync_phases)
        self._in_backward = False
        self._clock.backward_ends(self._tick())

    @_reported
    def _discover_enter(self, module, args):
        # Traced inside a compiled region, the hook is nothing: no graph break, no recompilation.
        if is_compiling() or self._tree is not None or not self._active():
            return
        if self._depth == 0 and not self._in_backward:
            # The first step ends at the next training forward, not at a validation's call.
            if self._clock.optimizer_stepped and self._optimizers and torch.is_grad_enabled():
                self._note_input(module, args)  # before the model message, which carries it
                self._finish_discovery()
                self._model_forward(module, args)
                self._depth += 1
                return
            if not any(c is module for c in self._candidates):
                self._candidates.append(module)
                self._held.update(owners.modules_in_frames(sys._getframe(1)))
            if torch.is_grad_enabled():  # not a check the script runs before training
                if self._bench is not None:
                    self._knobs.at_first_forward(module, args)
                self._training_state.outer_call(module)
                self._clock.forward_starts(now())
                if id(module) not in self._first_inputs:  # for an out-of-memory error's report
                    self._first_inputs[id(module)] = self._input_of(module, args)
        self._depth += 1

    @_reported
    def _discover_exit(self, module, args, output):
        if is_compiling() or self._tree is not None:
            return
        if self._active() and self._depth > 0:
            self._depth -= 1

    def _outermost_candidates(self):
        """The modules called outermost in the first step that no other of them contains."""
        return [c for c in self._candidates
                if not any(o is not c and any(m is c for m in o.modules())
                           for o in self._candidates)]

    def _finish_discovery(self):
        roots = module_tree.choose_roots(self._outermost_candidates(),
                                         module_tree.parameter_ids(self._optimizers))
        if not roots:
            self._fatal("no module whose parameters the optimizer trains was called in the first "
                        "step outside a compiled region: advisor bisects the model an optimizer "
                        "trains (compile it with model = torch.compile(model), not in place)")
        self._tree = self._tree_of(roots)
        self._held = {}
        for path in self._tree.info:
            what = module_tree.unshowable(path)
            if what is not None:
                self._fatal("the model's module %s has %s in its name: advisor names modules in "
                            "its lines and its report; rename it where the script names it "
                            "(add_module, a ModuleDict key or an attribute)" % (ascii(path), what))
        # Removing the discovery hooks would change what compiled code guards on and recompile it:
        # with a compiled module they stay, doing nothing. Without one they go, costing nothing.
        if not self._tree.compiled and \
                not any(entry["opaque"] for entry in self._tree.info.values()):
            for handle in self._discovery:
                handle.remove()
        self._discovery = []
        for root in roots:
            root.register_forward_pre_hook(self._model_forward)
            root.register_forward_hook(self._model_forward_end)
        first = next(roots[0].parameters(), None)
        self._cuda = first is not None and first.is_cuda
        self._device = first.device if self._cuda else None
        if self._bench is not None:
            reason = self._knobs.unsupported or self._knobs.not_applied(roots, self._tree)
            if reason:
                self._bench.skip(reason)
                _end_interpreter(self._loader_iterators)
            self._knobs.at_model(roots, self._cuda, self._tree)
            self._bench.model_found(roots, self._cuda, physical_cores)
            return
        self._regional.prepare(self._tree)
        self._send_model()
        self._awaiting_command = True

    @_reported
    def _model_forward(self, module, args):
        if is_compiling() or not self._active() or self._in_backward:
            return
        if self._clock.optimizer_stepped and not torch.is_grad_enabled():
            # An evaluation between steps (a validation loop under torch.no_grad): no step's
            # forward, and not the batch the model trains on (steps.py).
            self._evaluating = True
            self._clock.evaluation_starts(self._tick())
            return
        self._note_input(module, args)
        self._pause_loss_labels()
        if self._clock.optimizer_stepped:
            self._sync_if(self._sync_phases)
        closed = self._clock.forward_starts(self._tick())
        if closed is not None:
            self._step_closed(closed)
        if self._bench is not None:
            self._bench.forward(self._clock.completed, module, args)

    @_reported
    def _model_forward_end(self, module, args, output):
        if is_compiling():
            return
        if self._evaluating:
            self._evaluating = False
            self._clock.evaluation_ends(self._tick())
            return
        if not self._active() or self._in_backward or not torch.is_grad_enabled():
            return
        # The loss begins: the forward's device work is the forward's.
        self._sync_if(self._sync_phases)
        self._clock.forward_ends(self._tick())
        if self._loss_labels is not None:
            self._loss_labels.resume()

    def _pause_loss_labels(self):
        """The loss ends where the model is called again, backward() begins or the optimizer
        steps."""
        if self._loss_labels is not None:
            self._loss_labels.pause()

    def _note_input(self, module, args):
        """The model's input, from its first call."""
        if not self._input:
            self._input = self._input_of(module, args) or {}

    @staticmethod
    def _input_of(module, args):
        """The batch size and the dtype a call computes in, positional and keyword arguments alike
        (call_inputs): autocast's dtype where the call runs under autocast, else a floating
        input's, else its parameters' (token ids are int64; the GEMMs run in the weights' dtype);
        None without a batched tensor."""
        tensors = call_inputs.call_tensors(module, args)
        tensor = call_inputs.batched_tensor(tensors)
        if tensor is None:
            return None
        floating = next((t for t in tensors if t.is_floating_point()), None)
        if floating is None:
            floating = next((p for p in module.parameters() if p.is_floating_point()), None)
        dtype = floating.dtype if floating is not None else tensor.dtype
        device = "cuda" if tensor.is_cuda else "cpu"
        if _autocast_enabled(device):
            dtype = _autocast_dtype(device)
        return {"batch_size": int(tensor.shape[0]), "dtype": str(dtype).replace("torch.", "")}

    # ---- windows ------------------------------------------------------------------------

    def _step_closed(self, step):
        if self._bench is not None:
            if self._bench.step_closed(step):
                _end_interpreter(self._loader_iterators)
            return
        command = self._command
        if command is not None:
            self._send({"type": "step", "index": step[0]})  # advisor times out a hung script
            if step[0] == command.first - 1:
                self._compile.regional_warmed()  # a region compiled from now on is measured
            if command.measures(step[0]):
                command.spans.append(step)
                if self._stamps is not None:
                    command.device_spans.append(self._stamps.retime(step))
            if step[0] != command.last:
                return
            self._complete(command)
        elif not self._awaiting_command:
            return
        self._awaiting_command = False
        self._receive_command()

    def _start_recording(self, command):
        if self._cuda:
            torch.cuda.reset_peak_memory_stats(self._device)
            # The window's allocations show what was allocated before it only where they free it:
            # advisor's peak counts what the allocator holds now (docs/memory.md).
            command.allocated_at_start = torch.cuda.memory_allocated(self._device)
        # The GPU probe records kernels only where advisor ranks by them (not a host-bound step's
        # levels, nor the source window, which reads labels); a CPU model's ops count their page
        # faults instead.
        torch.ops.advisor.probe_start(
            self._cuda and bool(command.message.get("device_activity", True)), not self._cuda)
        command.recording = True
        self._sync_phases = bool(command.message.get("sync_phases", False))

    def _complete(self, command):
        self._sync_phases = False
        self._stamps = None
        for remove in command.undo:
            remove()
        loader = self._epochs.take() if self._epochs is not None else None
        if command.op == "time":
            # The measured steps end in a device synchronisation (_optimizer_ends).
            spans, clock = command.spans, "host_synchronised" if self._cuda else "host"
            if command.device_spans and all(s is not None for s in command.device_spans):
                spans, clock = command.device_spans, "cuda_events"
            self._channel.send_text(
                '{"type":"steps","steps":%s,"clock":"%s","loader":%s,"compile":%s}'
                % (json.dumps(spans, separators=(",", ":")), clock,
                   json.dumps(loader, separators=(",", ":")),
                   json.dumps(self._compile.report(), separators=(",", ":"))))
        else:
            # The device's work is done before CUPTI flushes its records and detaches.
            self._sync_if(True)
            events = torch.ops.advisor.probe_finish()
            command.recording = False
            message = {"memory": self._memory(command), "losses": self._loss_check(command),
                       "loader": loader, "compile": self._compile.report()}
            if command.message.get("input_stage"):
                message["stage"] = self._input_stage.finish() \
                    if self._input_stage is not None else None
            if command.op == "record" and command.message.get("instrument", "none") == "none":
                # The baseline's compiled kernels, by the tables of the graphs they came from.
                message["provenance"] = self._compile.provenance_tables()
            if command.op == "source":
                message["lines"] = {"%s:%d" % key: line_text(*key) for key in self._sources}
                self._sources = set()
            tail = json.dumps(message, separators=(",", ":"))[1:]
            self._channel.send_text('{"type":"window","steps":%s,"events":%s,%s'
                                    % (json.dumps(command.spans, separators=(",", ":")), events,
                                       tail))
        self._command = None

    @staticmethod
    def _loss_check(command):
        """Steps of the window whose loss was read, and those with a NaN or infinite one (a
        diverged training is measured all the same; advisor's report says so)."""
        non_finite = sum(1 for losses in command.losses.values()
                         if not all(bool(torch.isfinite(loss).all()) for loss in losses))
        return {"steps": len(command.losses), "non_finite": non_finite}

    def _memory(self, command):
        """The caching allocator over the window; None on a CPU, whose allocator keeps no
        counters."""
        if not self._cuda:
            return None
        stats = torch.cuda.memory_stats(self._device)
        return {"peak_allocated_mb": torch.cuda.max_memory_allocated(self._device) / 2**20,
                "peak_reserved_mb": torch.cuda.max_memory_reserved(self._device) / 2**20,
                "device_total_mb": torch.cuda.get_device_properties(
                    self._device).total_memory / 2**20,
                "alloc_retries": int(stats.get("num_alloc_retries", 0)),
                "at_start": {"device": self._device.index,
                             "allocated_bytes": int(command.allocated_at_start)}}

    def _receive_command(self):
        message = self._channel.receive()
        if message is None or message.get("op") == "exit":
            _end_interpreter(self._loader_iterators, self._input_stage)
        if message.get("op") == "detach":
            self._detach()
            return
        command = _Command(message, self._clock.completed)
        if command.first <= self._clock.completed:
            self._fatal("advisor asked for step %d onwards, but this rank is at step %d already: "
                        "the ranks are not in step" % (command.first, self._clock.completed))
        if command.op == "time" and self._cuda:
            # From the step in progress on: the first measured step starts where it ends.
            self._stamps = DeviceStamps(self._record_event)
        if command.op == "record":
            command.undo.append(self._instrument(message))
            if message.get("instrument") == "children":
                self._arrange_regions(message.get("parent", ""), command)
        elif command.op == "source" and message.get("span") == "loss":
            self._loss_labels = LineLabels(self._sources)
            command.undo.append(self._end_loss_labels)
        elif command.op == "source":
            module = self._tree.by_path.get(message.get("path"))
            if module is None:
                self._fatal("advisor asked for the source of an unknown module")
            capture = SourceCapture(module, self._sources)
            command.undo.append(capture.remove)
            self._arrange_regions(message.get("path"), command)
        if message.get("input_stage") and self._input_stage is not None:
            # From the warm-up step on: the batches in flight as the window starts are its own.
            self._input_stage.start()
        self._command = command

    def _end_loss_labels(self):
        self._loss_labels.pause()
        self._loss_labels = None

    def _instrument(self, message):
        kind = message.get("instrument", "none")
        if kind == "none":
            return lambda: None
        paths = (self._tree.every_module() if kind == "every"
                 else self._tree.children_of(message.get("parent", "")))
        markers = Markers()
        markers.install({path: self._tree.by_path[path] for path in paths})
        return markers.remove

    def _arrange_regions(self, parent, command):
        """Inside a compiled model, `parent` and the modules above it run eagerly and the others
        compiled alone for the command's steps (regional.py); undone with its hooks."""
        restore = self._regional.arrange(self._tree, parent)
        if restore is not None:
            command.undo.append(restore)

    def _detach(self):
        """--let-run: the probe stops measuring; the script runs on as if it were alone."""
        self._channel.close()
        self._channel = None

    # ---- messages -------------------------------------------------------------------------

    def _send(self, message):
        if self._channel is None:
            return
        try:
            self._channel.send(message)
        except OSError:
            pass  # advisor is gone (it ended the run); nothing is left to tell it

    def _fatal(self, text):
        if self._channel is None:
            sys.stderr.write("advisor probe: %s\n" % text)
        self._send({"type": "fatal", "message": text})
        os._exit(3)

    def _tick(self):
        """The host's time for the step clock, and in a timing window on a GPU the device's
        (device_clock.py)."""
        host_ns = now()
        if self._stamps is not None:
            self._stamps.stamp(host_ns)
        return host_ns

    def _record_event(self):
        event = torch.cuda.Event(enable_timing=True)
        event.record(torch.cuda.current_stream(self._device))
        return event

    def _sync_if(self, condition):
        if condition and self._cuda:
            own_sync.synchronize(self._device)  # advisor's wait, not the user's (own_sync.py)

    def _send_model(self):
        device = "cuda" if self._cuda else "cpu"
        message = {
            "type": "model",
            "torch": torch.__version__,
            "device": device,
            "device_name": torch.cuda.get_device_name(self._device) if self._cuda else "",
            "deterministic": bool(torch.are_deterministic_algorithms_enabled()),
            "allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
            "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
            "modules": self._tree.describe(),
            "input": self._input,
            "data": self._loader,
            "device_limits": self._device_limits(),
            "optimizers": [type(o).__name__ for o in self._optimizers],
            "training_state": self._training_state.describe(),
        }
        self._send(message)

    def _device_limits(self):
        if not self._cuda:
            return None
        props = torch.cuda.get_device_properties(self._device)
        threads = getattr(props, "max_threads_per_multi_processor", 0)
        return {"sm_count": props.multi_processor_count,
                "max_threads_per_sm": threads,
                "regs_per_sm": getattr(props, "regs_per_multiprocessor", 0),
                "smem_per_sm": getattr(props, "shared_memory_per_multiprocessor", 0),
                "max_warps_per_sm": threads // 32,
                "major": props.major}
