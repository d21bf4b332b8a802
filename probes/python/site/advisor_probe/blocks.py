"""Bench mode's blocks: the autotest's candidates measured inside the one running script
(engine/autotest/step_blocks.h). Knobs that the script's steps read as they run (backend flags,
autocast around the model's forward, the intra-op thread count) are switched between steps, so
the baseline and each candidate alternate in short blocks of steps in the same process: the same
start-up, the same warmed caches and allocator, and the machine's drift on both sides alike.
torch.compile is switched too: each root keeps its own forward and a compiled one, made once, and
the switch is which of the two the root calls; each compile mode has compiled forwards of its own
(regional compilation: each repeated block's).

The schedule runs in cycles. In each cycle every candidate gets a pair of blocks, its baseline
block and its candidate block, in the order A B on one cycle and B A on the next (and shifted by
the candidate's place), so that a trend over the run falls on both sides alike. Each block's first
`settle` steps follow a switch and are left out (cuDNN's benchmark mode searches, autocast's
weight casts fill its cache, the first compiled block compiles); its next `steps` steps are
timed, or more where a candidate's side ran faster than the baseline (LONGEST_BLOCK). Where a DataLoader with workers feeds the steps, a block that follows slower steps may find
the batches it holds ready (loader_waits.py) waiting in its queue: such a block leaves out as many
more steps, so that its timed steps begin once they wait for batches as a long run of its setting
would (BlockSchedule.drain)."""

import contextlib
import math

import torch

from advisor_probe import hf_attention
from advisor_probe import knobs
from advisor_probe.device_steps import ms
from advisor_probe import sdpa_backends

# The overrides a running script can take between two steps; any other knob needs a process.
SWITCHABLE = {"allow_tf32", "cudnn_benchmark", "deterministic", "autocast_dtype",
              "sdpa_backend", "intra_op_threads", "attn_implementation", "compile",
              "compile_mode"}


def _thread_count(value, physical_cores):
    return physical_cores() if value == 0 else int(value)


class Switches:
    """Sets a candidate's knobs for the next steps and puts the script's own settings back.
    Autocast is entered around each forward of the model's roots while a candidate asks for it,
    by hooks registered once (hooks cannot be removed from inside a forward). A compiled forward
    is the root's instance attribute `forward` while a candidate asks for it, as the compile
    knob sets it (knobs.py): the module's hooks, the probe's among them, stay eager."""

    def __init__(self, roots, cuda, physical_cores):
        self._roots = roots
        self._cuda = cuda
        self._physical_cores = physical_cores
        self._autocast_dtype = None
        self._contexts = []
        self._restore = []  # callables that put the script's settings back, in reverse order
        # By knobs.compile_request (the mode, and whether random ops draw from eager's generator:
        # the numerics check's compile): the modules and their compiled forwards (each root's, or
        # each repeated block's), made at the first switch to it and kept for the run, so that
        # dynamo's cache entries (on the forward's code, for that wrapper's backend) serve every
        # later block without a recompile.
        self._compiled = {}
        for root in roots:
            root.register_forward_pre_hook(self._enter_autocast)
            root.register_forward_hook(self._exit_autocast)

    def set(self, overrides):
        """Puts back the script's settings, then applies `overrides` (a candidate's knobs; an
        empty dict for the baseline)."""
        self.reset()
        for knob, value in overrides.items():
            if knob not in ("compile", "compile_mode"):
                getattr(self, "_set_" + knob)(value)
        request = knobs.compile_request(overrides)
        if request is not None:
            self._set_compiled(request)

    def reset(self):
        while self._restore:
            self._restore.pop()()

    def _keep(self, restore):
        self._restore.append(restore)

    def _set_allow_tf32(self, value):
        matmul, convolution = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32

        def restore():
            torch.backends.cuda.matmul.allow_tf32 = matmul
            torch.backends.cudnn.allow_tf32 = convolution

        self._keep(restore)
        torch.backends.cuda.matmul.allow_tf32 = bool(value)
        torch.backends.cudnn.allow_tf32 = bool(value)

    def _set_cudnn_benchmark(self, value):
        before = torch.backends.cudnn.benchmark
        self._keep(lambda: setattr(torch.backends.cudnn, "benchmark", before))
        torch.backends.cudnn.benchmark = bool(value)

    def _set_deterministic(self, value):
        before = torch.are_deterministic_algorithms_enabled()
        self._keep(lambda: torch.use_deterministic_algorithms(before))
        torch.use_deterministic_algorithms(bool(value))

    def _set_intra_op_threads(self, value):
        before = torch.get_num_threads()
        self._keep(lambda: torch.set_num_threads(before))
        torch.set_num_threads(_thread_count(value, self._physical_cores))

    def _set_sdpa_backend(self, backend):
        before = sdpa_backends.leave_only(backend)
        self._keep(lambda: sdpa_backends.restore(before))

    def _set_compiled(self, request):
        if request not in self._compiled:
            reason = knobs.compile_mode_not_applied(request[0], self._roots) \
                if request[0] is not None else ""
            if reason:  # the numerics check's processes say so; this run measures it not at all
                raise RuntimeError("advisor cannot compile so: " + reason)
            # Made under the script's own forwards (set() resets first): what the compile knob of
            # a process of its own would compile.
            self._compiled[request] = knobs.compiled_forwards(self._roots, request)
        for module, forward in self._compiled[request]:
            self._keep(_forward_restorer(module))
            module.forward = forward

    def _set_attn_implementation(self, implementation):
        """transformers reads the choice at every forward where it can switch a built model; the
        numerics check's processes said why where it cannot, and a run that gets here anyway
        fails rather than time eager attention under the candidate's name."""
        reason = hf_attention.not_switchable(self._roots)
        if reason:
            raise RuntimeError("advisor cannot switch the attention: " + reason)
        models = hf_attention.eager_models(self._roots)
        self._keep(lambda: [model.set_attn_implementation("eager") for model in models])
        hf_attention.switch(self._roots, implementation)

    def _set_autocast_dtype(self, dtype):
        if not self._cuda:
            return  # the recipe applies to CUDA only; advisor does not send it for a CPU model
        self._autocast_dtype = getattr(torch, dtype)
        self._keep(lambda: setattr(self, "_autocast_dtype", None))

    def autocast(self):
        """The context of a forward under the current knobs: autocast where a candidate asks for
        it (the numerics check calls the model's forward past the hooks that enter it)."""
        if self._autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast("cuda", dtype=self._autocast_dtype)

    def _enter_autocast(self, module, args):
        if self._autocast_dtype is None:
            return
        context = self.autocast()
        context.__enter__()
        self._contexts.append(context)

    def _exit_autocast(self, module, args, output):
        if self._contexts:
            self._contexts.pop().__exit__(None, None, None)


def _forward_restorer(root):
    """Puts the forward of `root` (a root, or a repeated block) back exactly: an instance
    attribute the script set (its own wrapper, a compiled forward), or none, so that its class's
    forward is called again."""
    own = vars(root).get("forward")
    had_own = "forward" in vars(root)

    def restore():
        if had_own:
            root.forward = own
        else:
            vars(root).pop("forward", None)

    return restore


# A block drains the DataLoader's queue only where the block before it ran this many times slower.
# The queue is full at a switch only if the workers kept ahead of the previous block's steps, so
# they make a batch at least as fast as those steps took one; a new side no faster than that never
# catches them up, and a side faster by a factor f takes batches out of the queue at most
# 1 - 1/f a step faster than the workers put them back. At f = 1.1 the drain's steps (12 on the
# seed) would take out less than a tenth of the batches queued: they would cost a block its length
# and buy nothing. Sides of one speed (deterministic-off 1.04x, compile 1.03x on the seed) stay
# below it with the block-to-block spread of their steps; a side the queue's batches would flatter
# (the seed's bf16, 3.7x) is far above it.
DRAIN_ABOVE = 1.1

# A candidate's block times more steps than the design's where its side ran faster than the
# baseline, as many as make it about as long as a baseline block, up to this many times the
# design's. A fast side's steps wander most where the host drives them (the seed's bf16 on the
# H200: 41 to 61 ms, its blocks' means 3.2x to 4.1x the baseline's), and five of them are a noisy
# mean where twenty cost little: about 0.85 s, as long as a baseline block's five of 168 ms.
LONGEST_BLOCK = 4

BASELINE = "baseline"


class Block:
    def __init__(self, candidate, side, cycle):
        self.candidate = candidate  # the candidate's id
        self.side = side            # "baseline" or "candidate"
        self.cycle = cycle
        self.settle = 0      # the steps after its switch left out, set as the schedule enters it
        self.settle_ms = []  # the steps after its switch, left out: a compile's first block's too
        self.step_ms = []
        self.loader_wait_ms = []  # each timed step's wait for its batch, where a DataLoader fed it
        self.epoch_starts = []    # the timed steps (their places in step_ms) that began an epoch
        # On a GPU: the host's wait for the device at the block's end, once the next step's batch
        # was fetched (device_steps.host_lead_ms); None where that batch began an epoch.
        self.host_lead_ms = None
        self.peak_memory_mb = None

    @property
    def pace_key(self):
        """Every baseline block runs the script's own settings: one pace for all of them."""
        return BASELINE if self.side == "baseline" else self.candidate

    def as_json(self):
        block = {"candidate": self.candidate, "side": self.side, "cycle": self.cycle,
                 "settle_ms": [ms(step) for step in self.settle_ms],
                 "step_ms": [ms(step) for step in self.step_ms],
                 "peak_memory_mb": self.peak_memory_mb}
        if self.loader_wait_ms:
            block["loader_wait_ms"] = self.loader_wait_ms
            block["epoch_starts"] = self.epoch_starts
        if self.host_lead_ms is not None:
            block["host_lead_ms"] = self.host_lead_ms
        return block


def _median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


class BlockSchedule:
    """Which block each step after the warm-up belongs to, and whether it is timed. The schedule is
    walked in step order: each block's settle steps are decided as the walk enters it, from the
    steps timed before it."""

    def __init__(self, config):
        self.candidates = [(c["id"], dict(c["overrides"])) for c in config["candidates"]]
        # By id: the tolerance of each dtype, for the candidates whose numerics are checked.
        self.checks = {c["id"]: (dict(c["overrides"]), dict(c["check"]))
                       for c in config["candidates"] if "check" in c}
        self.settle = int(config["settle"])  # after every switch
        self.steps = int(config["steps"])
        self.loader_queue = 0  # the batches the feeding DataLoader holds ready (drain)
        self.epoch_batches = None  # that DataLoader's len(), where it has one
        # The host's wait for every epoch's first batch after the warm-up, in a timed step or not.
        self.epoch_start_waits_ms = []
        self.blocks = []
        for cycle in range(int(config["cycles"])):
            for place, (name, _) in enumerate(self.candidates):
                sides = ("baseline", "candidate") if (cycle + place) % 2 == 0 else \
                    ("candidate", "baseline")
                self.blocks.extend(Block(name, side, cycle) for side in sides)
        self._drain_every_switch = False
        self._warmup_ms = []  # the baseline's steps before the first block: its first pace
        self._entered = -1    # the block the walk is in
        self._start = 0       # the position of its first step
        self._end = 0         # the position after its last

    def warmed_up(self, step_ms):
        """A warm-up step under the script's own settings took `step_ms`."""
        self._warmup_ms.append(step_ms)

    def leaves_block(self, position):
        """Whether the `position`th step after the warm-up is past the block the walk is in (or
        the first step of all): the block's last step has closed."""
        return position >= self._end

    def at(self, position):
        """The block of the `position`th step after the warm-up and whether that step is timed;
        None past the schedule's end. Positions are asked in order: a block is entered once the
        steps of the one before it are recorded."""
        while position >= self._end:
            if self._entered + 1 >= len(self.blocks):
                return None, False
            self._enter(self._entered + 1)
        block = self.blocks[self._entered]
        return block, position - self._start >= block.settle

    def _enter(self, index):
        before = self.blocks[index - 1].pace_key if index > 0 else BASELINE
        block = self.blocks[index]
        block.settle = self.settle + (self.loader_queue if self._drains(before, block) else 0)
        self._entered, self._start = index, self._end
        self._end = self._start + block.settle + self._timed_steps(block)

    def _timed_steps(self, block):
        """The design's steps, or more for a candidate side faster than the baseline so far
        (LONGEST_BLOCK). A launcher's ranks keep the design's: each rank times its own steps, and
        blocks of lengths that differed by rank would fall out of step with one another."""
        if block.side == "baseline" or self._drain_every_switch:
            return self.steps
        baseline, own = self._pace_ms(BASELINE), self._pace_ms(block.pace_key)
        if baseline is None or own is None or own >= baseline:
            return self.steps
        return min(LONGEST_BLOCK * self.steps, math.ceil(self.steps * baseline / own))

    def _drains(self, before, block):
        """Whether `block` may find the loader's queue full of batches it would take faster than
        the workers make them: its side ran faster than the side before it, or has not run yet."""
        if not self.loader_queue:
            return False
        if self._drain_every_switch:
            return True
        earlier, own = self._pace_ms(before), self._pace_ms(block.pace_key)
        return earlier is None or own is None or earlier > DRAIN_ABOVE * own

    def _pace_ms(self, key):
        """The median of a side's steps so far (the baseline's warm-up included); None before any.
        Read as the walk enters a block: a step timed on the device is waited for here, once its
        block has ended (device_steps.ms)."""
        steps = list(self._warmup_ms) if key == BASELINE else []
        for block in self.blocks[:self._entered + 1]:
            if block.pace_key == key:
                steps.extend(ms(step) for step in block.step_ms)
        return _median(steps) if steps else None

    def drain(self, queue_depth, epoch_batches=None, every_switch=False):
        """Leaves `queue_depth` more steps out after a switch into a faster side: the batches the
        DataLoader feeding the steps holds ready (loader_waits.queue_depth), and its epoch's
        batches, for the result. Called once, before the first block. A side faster than the
        loader's workers is served from that queue, filled during the slower block before it, for
        as many steps as it holds, without waiting: fewer settle steps would time its compute
        speed where a long run of it gets the loader's. After a side as fast or faster the queue
        holds nothing the new side could take ahead of the workers (DRAIN_ABOVE).
        `every_switch`: drain after every switch, for the ranks of a launcher: each rank times
        its own steps, and decisions that differed by rank would leave their blocks out of step
        with one another (merge_ranks pairs them block by block)."""
        self.loader_queue = int(queue_depth)
        self.epoch_batches = epoch_batches
        self._drain_every_switch = every_switch

    def drop(self, candidates, started):
        """Leaves out the blocks of `candidates` (their numerics refused them) after the first
        `started` blocks."""
        self.blocks = self.blocks[:started] + [b for b in self.blocks[started:]
                                               if b.candidate not in candidates]

    def overrides(self, block):
        if block is None or block.side == "baseline":
            return {}
        return next(o for name, o in self.candidates if name == block.candidate)

    def result(self, complete):
        result = {"blocks": [b.as_json() for b in self.blocks if b.step_ms],
                  "settle": self.settle, "loader_queue": self.loader_queue,
                  "complete": complete}
        if self.epoch_batches is not None:
            result["epoch_batches"] = self.epoch_batches
        if self.epoch_start_waits_ms:
            result["epoch_start_waits_ms"] = self.epoch_start_waits_ms
        return result
