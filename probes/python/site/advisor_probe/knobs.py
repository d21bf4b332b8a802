"""A recipe's knobs, applied by the probe to the script as it runs (docs/recipes.md): never by
editing the script. What the script constructs (DataLoaders, optimizers) is changed as it is
constructed; what it sets up (backend flags, the model) is changed once the model is known,
after the script's own set-up, so that its settings do not undo the knob."""

import functools
import inspect
import os
import random
import sys

import torch

from advisor_probe import hf_attention
from advisor_probe import modules as module_tree
from advisor_probe import regional
from advisor_probe import sdpa_backends

# What each override needs, for a clear "cannot apply" instead of a silent no-op.
KNOWN = {"deterministic", "batch_scale", "autocast_dtype", "allow_tf32", "cudnn_benchmark",
         "channels_last", "fused_optimizer", "pin_memory", "dataloader_workers",
         "intra_op_threads", "sdpa_backend", "compile", "compile_mode", "ddp_bucket_cap_mb",
         "ddp_gradient_as_bucket_view", "ddp_static_graph", "ddp_no_sync",
         "fsdp_sharding_strategy", "persistent_workers", "checkpoint_modules",
         "attn_implementation"}
# DistributedDataParallel's constructor arguments each DDP knob sets.
_DDP_ARGUMENTS = {"ddp_bucket_cap_mb": "bucket_cap_mb",
                  "ddp_gradient_as_bucket_view": "gradient_as_bucket_view",
                  "ddp_static_graph": "static_graph"}


def physical_cores():
    """The machine's physical cores, at most the CPUs this process may run on (a job pinned to
    some cores, by taskset or its scheduler, gets one worker per core it has, as advisor's own
    count in engine/util/physical_cores.cpp)."""
    cores = set()
    try:
        with open("/proc/cpuinfo") as info:
            physical = core = None
            for line in info:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "physical id":
                    physical = value.strip()
                elif key == "core id":
                    core = value.strip()
                    cores.add((physical, core))
    except OSError:
        pass
    count = len(cores) or os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        count = min(count, len(os.sched_getaffinity(0)))
    return max(count, 1)


def _eager_random_numbers():
    """Random ops in compiled code draw from eager's generator, as the baseline's do. Inductor
    otherwise generates its own random numbers: a compiled timm ViT kept other patches in its
    PatchDropout than the eager baseline, and its losses differed by 0.45 % for that alone. Only
    the numerics check's run sets it; the timed runs compile as the user's would."""
    import torch._inductor.config as inductor_config

    inductor_config.fallback_random = True


class ItemSeeded(torch.utils.data.Dataset):
    """The script's map-style Dataset in the numerics check's runs: each item draws its random
    numbers (Python's, torch's, numpy's) from its own index, as the TorchScript door's input stage
    does per batch. A DataLoader worker otherwise draws them from its own seed, so items with
    random augmentations change with the worker that prepares them, and the losses of a baseline
    and a candidate with another worker count differ for that alone."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, index):
        if isinstance(index, int):
            random.seed(index)
            torch.manual_seed(index)
            numpy = sys.modules.get("numpy")
            if numpy is not None:
                numpy.random.seed(index % 2**32)
        return self.dataset[index]

    def __getattr__(self, name):
        dataset = self.__dict__.get("dataset")
        # A batched fetch (__getitems__, torch 2.x) would pass the items by without their seeds.
        if dataset is None or name == "__getitems__":
            raise AttributeError(name)
        return getattr(dataset, name)


# The compile knob's value in a numerics check inside the run (as_checked): the compiled forward's
# random ops draw from eager's generator.
EAGER_RANDOM_COMPILE = "eager_random"
# The compile_mode that compiles the model's repeated blocks one by one, the rest eager (torch's
# regional compilation), where the others are torch.compile's own modes for the roots' forwards.
REGIONAL = "regional"


def compile_request(overrides):
    """(mode, eager_random) of the compile a candidate's knobs ask for: mode None for
    torch.compile's default, REGIONAL, or a torch.compile mode ("max-autotune",
    "reduce-overhead"); None where they compile nothing."""
    mode = overrides.get("compile_mode")
    value = overrides.get("compile")
    if mode is None and not value:
        return None
    return mode, value == EAGER_RANDOM_COMPILE


def _checked_mode_options(mode):
    """A torch.compile mode's inductor options for the numerics check, less its CUDA graphs: a
    graph replays the kernels it captured, so the check compares the mode's kernels without them
    (and a forward with no backward, as the check runs it, leaves no captured graph pending)."""
    from torch._inductor import list_mode_options

    options = dict(list_mode_options(mode))
    options.pop("triton.cudagraphs", None)
    return options


def compiled(forward, eager_random=False, mode=None):
    """`forward` through torch.compile, as the compile knob compiles it, in torch.compile's `mode`
    where one is given. With `eager_random`, inductor's `fallback_random`: random ops call eager's,
    drawing the numbers the eager baseline draws (_eager_random_numbers says why), set in this
    compile's options rather than globally, so that the forward the timed blocks compile in the
    same process keeps inductor's own (torch.compile takes a mode or options, so the mode's
    options are spelt out there). The two are separate wrappers with separate backends, and
    dynamo serves neither's cache entry to the other (its entries match the backend they were
    compiled for; test_blocks.py checks)."""
    if eager_random:
        options = _checked_mode_options(mode) if mode is not None else {}
        options["fallback_random"] = True
        return torch.compile(forward, options=options)
    if mode is not None:
        return torch.compile(forward, mode=mode)
    return torch.compile(forward)


def compiled_forwards(roots, request):
    """[(module, its compiled forward)] for a compile_request: each root's forward, or for
    REGIONAL each of the model's repeated blocks' (regional.repeated_blocks), whose instances of
    one class share a graph where dynamo's guards allow; dynamo's recompile limit is raised by
    their number for the rest of the run, so that no block past the limit runs eagerly unseen."""
    mode, eager_random = request
    if mode == REGIONAL:
        blocks = regional.repeated_blocks(roots)
        regional.raise_recompile_limit(len(blocks))
        return [(block, compiled(block.forward, eager_random)) for block in blocks]
    return [(root, compiled(root.forward, eager_random, mode)) for root in roots]


def compile_mode_not_applied(mode, roots):
    """Why the compile_mode `mode` cannot apply to the model's `roots`, or "". A model the script
    compiled itself is not compiled again: the mode is a change to the script's own call."""
    if any(module_tree.is_compiled(root) for root in roots):
        change = ("compile each repeated block in the script instead of the whole model"
                  if mode == REGIONAL else
                  "pass mode=\"%s\" to the script's own torch.compile call" % mode)
        return "the script compiles its model itself, which advisor does not compile again: " + \
            change
    if mode == REGIONAL and not regional.repeated_blocks(roots):
        return ("the model has no ModuleList or Sequential of two or more blocks of one class "
                "to compile one by one")
    return ""


def _count(value):
    return physical_cores() if value == 0 else int(value)


def as_checked(overrides):
    """A candidate's knobs as a numerics check runs them, in its own process or inside the run
    (numerics_check.check_in_run). An attention switch (eager -> SDPA) runs SDPA's math backend,
    which drops attention weights out with at::dropout, drawing the same mask from the same
    generator as eager attention's F.dropout: the check then compares the switch's arithmetic, not
    two dropout masks. A fused kernel draws its own inside the kernel, and a GPT-2 with attention
    dropout differed by 19 % in its logits for that alone (H200, 2026-11-29). The timed runs keep
    the fused kernels. A compiled forward draws its random numbers from eager's generator
    (EAGER_RANDOM_COMPILE), for the same reason; the timed runs compile as the user's would."""
    checked = dict(overrides)
    if "attn_implementation" in checked and "sdpa_backend" not in checked:
        checked["sdpa_backend"] = "math"
    if checked.get("compile") is True or "compile_mode" in checked:
        checked["compile"] = EAGER_RANDOM_COMPILE
    return checked


class Knobs:
    def __init__(self, overrides, numerics=False):
        """numerics: this run records losses for the autotest's numerics check, not timings."""
        self._overrides = dict(as_checked(overrides) if numerics else overrides)
        self._numerics = numerics
        unknown = sorted(set(self._overrides) - KNOWN)
        self.unsupported = ("the script probe cannot apply %s" % ", ".join(unknown)) if unknown else ""
        self._autocast = []
        self._ddp_built = False  # a DDP knob is applied only where the script builds a DDP
        self._fsdp_built = False
        self._forwards = 0         # ddp_no_sync: DDP forward passes since the last optimizer step
        self._micro_steps = None   # ddp_no_sync: forward passes per optimizer step, from step 0
        self._first_forward_seen = False
        self._early_checkpoints = {}  # path -> [(module, its forward before)] wrapped in step 0
        self._early_autocast = None   # (module, hook handles) autocast from step 0
        self._early_attention = False  # attn_implementation switched in step 0

    def __bool__(self):
        return bool(self._overrides)

    # ---- as the script constructs things ---------------------------------------------------

    def at_import(self):
        o = self._overrides
        if self._numerics or \
                {"dataloader_workers", "pin_memory", "persistent_workers", "batch_scale"} & set(o):
            self._patch_data_loader()
        if o.get("fused_optimizer"):
            self._patch_optimizers()
        if set(_DDP_ARGUMENTS) & set(o):
            self._patch_ddp()
        if o.get("ddp_no_sync"):
            self._patch_ddp_forward()
        if "fsdp_sharding_strategy" in o:
            self._patch_fsdp()

    def _patch_fsdp(self):
        """The script's FullyShardedDataParallel (every unit its auto-wrap policy makes, which
        inherit the root's arguments) built with the knob's sharding strategy."""
        try:
            from torch.distributed.fsdp import FullyShardedDataParallel, ShardingStrategy
        except (ImportError, ValueError) as error:  # ValueError: Debian's 1.13 under Python 3.11
            self.unsupported = "this torch's FSDP cannot be imported (%s)" % error
            return
        original = FullyShardedDataParallel.__init__
        signature = inspect.signature(original)
        strategy = ShardingStrategy[self._overrides["fsdp_sharding_strategy"]]
        knobs = self

        @functools.wraps(original)
        def init(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            bound.arguments["sharding_strategy"] = strategy
            knobs._fsdp_built = True
            original(*bound.args, **bound.kwargs)

        FullyShardedDataParallel.__init__ = init

    def _patch_ddp(self):
        """The script's DistributedDataParallel is built with the knob's arguments, in every rank
        alike (each rank's probe has the same knobs), so the ranks' buckets still match."""
        import torch.nn.parallel

        ddp = torch.nn.parallel.DistributedDataParallel
        original = ddp.__init__
        signature = inspect.signature(original)
        arguments = {_DDP_ARGUMENTS[knob]: value for knob, value in self._overrides.items()
                     if knob in _DDP_ARGUMENTS}
        missing = sorted(set(arguments) - set(signature.parameters))
        if missing:  # an older torch: say so rather than measure the baseline under its name
            self.unsupported = "this torch's DistributedDataParallel takes no %s" % \
                ", ".join(missing)
            return
        knobs = self

        @functools.wraps(original)
        def init(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            bound.arguments.update(arguments)
            knobs._ddp_built = True
            original(*bound.args, **bound.kwargs)

        ddp.__init__ = init

    def _patch_ddp_forward(self):
        """no_sync() as the script could write it: every micro-step of a step but the last
        accumulates its gradients locally, the last all-reduces the sum. The count of micro-steps
        is the first step's (which syncs every one, as the script does)."""
        import torch.nn.parallel

        ddp = torch.nn.parallel.DistributedDataParallel
        original = ddp.forward
        knobs = self

        @functools.wraps(original)
        def forward(module, *args, **kwargs):
            knobs._ddp_built = True
            if torch.is_grad_enabled():
                knobs._forwards += 1
                if knobs._micro_steps is not None:
                    # DDP reads the flag in its forward to decide whether this backward reduces.
                    module.require_backward_grad_sync = knobs._forwards >= knobs._micro_steps
            return original(module, *args, **kwargs)

        ddp.forward = forward

    def optimizer_stepped(self):
        """The session's call after each optimizer step."""
        if self._micro_steps is None and self._forwards:
            self._micro_steps = self._forwards
        self._forwards = 0

    def not_applied(self, roots=(), tree=None):
        """Why a knob had nothing to apply to in this script, once the model (`roots`, named as
        `tree`, the session's ModuleTree) is known; "" when every knob found its place."""
        if "compile_mode" in self._overrides:
            reason = compile_mode_not_applied(self._overrides["compile_mode"], roots)
            if reason:
                return reason
        if "attn_implementation" in self._overrides and not self._early_attention:
            reason = hf_attention.not_switchable(roots)
            if reason:
                return reason
        if "checkpoint_modules" in self._overrides:
            if not self._overrides["checkpoint_modules"]:
                return "no finding named a module instance to checkpoint"
            by_path = tree.by_path if tree is not None else {}
            missing = [p for p in self._overrides["checkpoint_modules"] if not by_path.get(p)]
            if missing:
                return "the model has no module instance %s to checkpoint" % ", ".join(missing)
        ddp_knobs = (set(_DDP_ARGUMENTS) | {"ddp_no_sync"}) & set(self._overrides)
        if ddp_knobs and not self._ddp_built:
            return "the script builds no torch.nn.parallel.DistributedDataParallel"
        if "fsdp_sharding_strategy" in self._overrides and not self._fsdp_built:
            return "the script builds no torch.distributed.fsdp.FullyShardedDataParallel"
        if self._overrides.get("ddp_no_sync") and (self._micro_steps or 0) < 2:
            return ("the script runs one forward pass per optimizer step: no micro-step to "
                    "accumulate without syncing")
        return ""

    def _patch_data_loader(self):
        o = self._overrides
        numerics = self._numerics
        loader = torch.utils.data.DataLoader
        original = loader.__init__
        signature = inspect.signature(original)

        @functools.wraps(original)
        def init(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            arguments = bound.arguments
            if "dataloader_workers" in o:
                arguments["num_workers"] = _count(o["dataloader_workers"])
            if o.get("pin_memory") and torch.cuda.is_available():
                arguments["pin_memory"] = True
            if "persistent_workers" in o:
                # DataLoader refuses persistent workers without workers: with none it stays off.
                workers = arguments.get("num_workers", signature.parameters["num_workers"].default)
                arguments["persistent_workers"] = bool(o["persistent_workers"]) and workers > 0
            if "batch_scale" in o and arguments.get("batch_sampler") is None:
                arguments["batch_size"] = arguments.get("batch_size", 1) * int(o["batch_scale"])
            dataset = arguments.get("dataset")
            if numerics and not isinstance(dataset, torch.utils.data.IterableDataset):
                arguments["dataset"] = ItemSeeded(dataset)
            original(*bound.args, **bound.kwargs)

        loader.__init__ = init

    def _patch_optimizers(self):
        for name in dir(torch.optim):
            cls = getattr(torch.optim, name)
            if not (isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer)) or \
                    cls is torch.optim.Optimizer:
                continue
            parameters = inspect.signature(cls.__init__).parameters
            if "fused" in parameters or "foreach" in parameters:
                cls.__init__ = self._fused_init(cls.__init__, "fused" in parameters)

    @staticmethod
    def _fused_init(original, has_fused):
        @functools.wraps(original)
        def init(self, params, *args, **kwargs):
            params = list(params)
            first = params[0]["params"][0] if params and isinstance(params[0], dict) else \
                (params[0] if params else None)
            on_cuda = isinstance(first, torch.Tensor) and first.is_cuda
            if has_fused and on_cuda:
                kwargs["fused"], kwargs["foreach"] = True, False
            else:
                kwargs["foreach"] = True
            original(self, params, *args, **kwargs)

        return init

    # ---- the first step, before the model is known ----------------------------------------

    def at_first_forward(self, module, args):
        """The knobs that change what a step holds in memory (checkpointing, autocast, SDPA), on the
        module the first step's training forward calls first: the model is known only when the
        second step starts (at_model), and a script that ran out of memory in its first step must
        run with them from there to tell whether it fits with them (the autotest's candidate-only
        runs, engine/autotest/fit_runs.h). Once; at_model keeps what it finds on the model and
        undoes what it does not (paths named another way there: several roots)."""
        if self._first_forward_seen:
            return
        self._first_forward_seen = True
        o = self._overrides
        if o.get("checkpoint_modules"):
            by_path = module_tree.ModuleTree([module]).by_path
            found = [by_path.get(path) for path in o["checkpoint_modules"]]
            if all(m is not None for m in found):
                _without_kv_cache([module])
                for path, m in zip(o["checkpoint_modules"], found):
                    members = _called_members(m)
                    self._early_checkpoints[path] = [(member, member.forward) for member in members]
                    for member in members:
                        member.forward = _checkpointed(member.forward)
        if "attn_implementation" in o and not hf_attention.not_switchable([module]):
            hf_attention.switch([module], o["attn_implementation"])
            self._early_attention = True
        first = next(module.parameters(), None)
        if o.get("autocast_dtype") and first is not None and first.is_cuda:
            self._early_autocast = (module, [module.register_forward_pre_hook(self._enter_autocast),
                                             module.register_forward_hook(self._exit_autocast)])
            # This call read its pre-hooks before this one ran; its forward hooks it reads after.
            self._enter_autocast(module, args)

    def _checkpoint(self, tree):
        """Each instance checkpoint_modules names, by its path in the model's tree, wrapped once."""
        for path in self._overrides["checkpoint_modules"]:
            members = _called_members(tree.by_path[path])
            early = self._early_checkpoints.pop(path, [])
            if len(early) == len(members) and all(m is e for m, (e, _) in zip(members, early)):
                continue
            for module, forward in early:
                module.forward = forward
            for member in members:
                member.forward = _checkpointed(member.forward)

    def _autocast_root(self, root):
        """Autocast around each call of `root`, unless step 0's module is it already."""
        if self._early_autocast is not None and self._early_autocast[0] is root:
            return
        root.register_forward_pre_hook(self._enter_autocast)
        root.register_forward_hook(self._exit_autocast)

    # ---- once the model is known -----------------------------------------------------------

    def at_model(self, roots, cuda, tree=None):
        o = self._overrides
        if "deterministic" in o:
            torch.use_deterministic_algorithms(bool(o["deterministic"]))
        if "allow_tf32" in o:
            torch.backends.cuda.matmul.allow_tf32 = bool(o["allow_tf32"])
            torch.backends.cudnn.allow_tf32 = bool(o["allow_tf32"])
        if "cudnn_benchmark" in o:
            torch.backends.cudnn.benchmark = bool(o["cudnn_benchmark"])
        if "sdpa_backend" in o:
            sdpa_backends.leave_only(o["sdpa_backend"])
        if "intra_op_threads" in o:
            torch.set_num_threads(_count(o["intra_op_threads"]))
        if "attn_implementation" in o:
            hf_attention.switch(roots, o["attn_implementation"])
        if o.get("checkpoint_modules"):
            # Paths as the bisection names them (not_applied checked that each is there).
            _without_kv_cache(roots)
            self._checkpoint(tree)
        if self._early_autocast is not None and not any(r is self._early_autocast[0]
                                                        for r in roots):
            for handle in self._early_autocast[1]:
                handle.remove()
            self._early_autocast = None
        for root in roots:
            if o.get("channels_last"):
                root.to(memory_format=torch.channels_last)
                root.register_forward_pre_hook(_channels_last_inputs)
            if o.get("autocast_dtype") and cuda:
                self._autocast_root(root)
        request = compile_request(o)
        if request is not None:
            if self._numerics:
                _eager_random_numbers()
            # The forward, not the module: the module's own hooks (the probe's) stay eager.
            for module, forward in compiled_forwards(roots, request):
                module.forward = forward

    def _enter_autocast(self, module, args):
        context = torch.autocast("cuda", dtype=getattr(torch, self._overrides["autocast_dtype"]))
        context.__enter__()
        self._autocast.append(context)

    def _exit_autocast(self, module, args, output):
        if self._autocast:
            self._autocast.pop().__exit__(None, None, None)


def _channels_last_inputs(module, args):
    return tuple(a.contiguous(memory_format=torch.channels_last)
                 if isinstance(a, torch.Tensor) and a.dim() == 4 else a for a in args)


def _called_members(module):
    """What checkpointing `module` wraps: itself where it has a forward of its own, else (a
    ModuleList, a ModuleDict: containers whose forward is never called) each of its members, so
    that checkpointing a GPT-2's `transformer.h` checkpoints its blocks rather than nothing."""
    if type(module).forward is not torch.nn.Module.forward:
        return [module]
    return [member for child in module.children() for member in _called_members(child)]


def _without_kv_cache(roots):
    """Turns off the key/value cache of every transformers-style model under `roots`
    (`config.use_cache`), as transformers' own gradient checkpointing does in training: a
    block that appends its keys to the cache it is passed appends them again when its forward is
    recomputed in the backward, and its attention then sees twice the keys its mask allows (a
    GPT-2 checkpointed on an H200 failed so). Training reads nothing from the cache."""
    for root in roots:
        for module in root.modules():
            config = getattr(module, "config", None)
            if getattr(config, "use_cache", False) is True:
                config.use_cache = False


def _checkpointed(forward):
    """`forward` under torch.utils.checkpoint: its activations are not kept for backward but
    recomputed there. Non-reentrant where the torch has it (1.11 on: any inputs, keyword
    arguments, no need for an input that requires grad); a forward without gradients (an
    evaluation) runs as it is."""
    from torch.utils.checkpoint import checkpoint

    non_reentrant = "use_reentrant" in inspect.signature(checkpoint).parameters

    @functools.wraps(forward)
    def run(*args, **kwargs):
        if not torch.is_grad_enabled():
            return forward(*args, **kwargs)
        if non_reentrant:
            return checkpoint(forward, *args, use_reentrant=False, **kwargs)
        return checkpoint(forward, *args, **kwargs)

    return run
