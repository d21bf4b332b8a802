"""Bench mode: the probe as the autotest's candidate (engine/script/script_candidate). The script
runs with the candidate's knobs; after its first step (which finds the model) and `warmup` more, the
probe times `steps` steps, or records the losses of the first `loss_steps` steps after the first,
and writes the worker result; the session then ends the process. With `blocks` it instead measures
the baseline and several candidates in blocks of steps in this one process (blocks.py), and writes
what it timed when the schedule ends, or when the script ends first.

Under a launcher every rank runs this with the same configuration. The job's step is as long as
its slowest rank's: each other rank writes its timings beside the result, and rank 0 waits for
them and writes the one worker result, each step the longest any rank took. The losses are rank
0's (DistributedDataParallel keeps the ranks' parameters equal; each rank's loss is its own
batch's)."""

import json
import os
import sys
import threading
import time

import torch

from advisor_probe import call_inputs
from advisor_probe.blocks import BlockSchedule, Switches
from advisor_probe.device_steps import DeviceStepTimes, ms
from advisor_probe.loader_waits import LoaderWaits
from advisor_probe.numerics_check import check_in_run, within

# How long rank 0 waits for another rank's timings once its own are done. The ranks step in
# lockstep, so theirs are due within a step; a rank that died ends the launcher's job anyway.
RANK_TIMINGS_WAIT_S = 120.0


class Bench:
    def __init__(self, config, device_of):
        self._config = config
        # A callable: the model's CUDA device, None where it is on the CPU (known after step 0).
        # Its peak memory is read there, not on the current device, which a script need not set.
        self._device = device_of
        self._warmup = int(config.get("warmup", 0))
        self._steps = int(config.get("steps", 0))
        self._loss_steps = int(config.get("loss_steps", 0))
        self._step_loss = None      # the step in progress: sum of the losses it backpropagated
        self._last_loss = None      # the last loss backpropagated, read once at the end
        self._losses = []
        self._step_ms = []
        self._samples = 0
        self._warmup_started = None
        self._warmup_s = None
        # On a GPU the measured steps are timed by CUDA events on the stream (device_steps.py),
        # known once the model is; the host's clock on the CPU.
        self._device_steps = None
        self._schedule = BlockSchedule(config["blocks"]) if "blocks" in config else None
        self._switches = None
        # The DataLoader feeding the steps: its queue drained after a switch into a faster side,
        # its waits and epochs' starts recorded.
        self.loader_waits = LoaderWaits(torch.utils.data.IterableDataset) \
            if self._schedule is not None else None
        # The batch of the step after the closed one: the host's wait for it, in ms, and whether
        # it began an epoch.
        self._next_batch = (0.0, False)
        self._loader_fed = False    # the blocks' steps are fed by a DataLoader: their waits recorded
        self._block = None          # the block of the step in progress
        self._scheduled_steps = 0   # steps closed since the schedule began
        self._numerics = None       # by candidate id: the check inside the run, once it ran
        self._rank = int(os.environ.get("RANK", 0))
        self._world_size = int(os.environ.get("WORLD_SIZE", 1))
        # advisor's --step-timeout (0: none), from the probe's start: start-up is the first step's.
        self._step_timeout_s = float(config.get("step_timeout_s", 0))
        self._progress_at = time.monotonic()
        if self._step_timeout_s > 0:
            threading.Thread(target=self._watch_steps, name="advisor-step-timeout",
                             daemon=True).start()

    def _watch_steps(self):
        """Ends a candidate run whose script stops stepping, as advisor ends a hung script: the
        autotest's own bound on a process is minutes, the user asked for --step-timeout."""
        while True:
            left = self._progress_at + self._step_timeout_s - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(left, 1.0))
        sys.stderr.write("advisor probe: %s made no training step in %g s (--step-timeout)\n"
                         % (os.path.basename(sys.argv[0]) or "the script", self._step_timeout_s))
        sys.stderr.flush()
        os._exit(124)

    @property
    def first_measured(self):
        """Index of the first measured step (step 0 finds the model)."""
        return 1 + self._warmup

    def measuring(self, index):
        return self._loss_steps == 0 and self.first_measured <= index

    @property
    def times_on_device(self):
        """The measured steps' ends are CUDA events (step_ends), not the device's end awaited."""
        return self._device_steps is not None

    def model_found(self, roots, cuda, physical_cores):
        self._warmup_started = self._progress_at = time.monotonic()
        if cuda and self._loss_steps == 0:
            self._device_steps = DeviceStepTimes(self._record_event)
        if self._schedule is not None:
            self._switches = Switches(roots, cuda, physical_cores)

    def _record_event(self):
        event = torch.cuda.Event(enable_timing=True)
        event.record(torch.cuda.current_stream(self._device()))
        return event

    def step_ends(self, host_ns):
        """A measured step's optimizer step ended at `host_ns` (the step clock's time)."""
        self._device_steps.step_ended(host_ns)

    def backward(self, tensors):
        tensor = tensors[0] if isinstance(tensors, (tuple, list)) and tensors else tensors
        if not isinstance(tensor, torch.Tensor) or tensor.dim() != 0:
            return
        value = tensor.detach().float()
        self._last_loss = value
        if self._loss_steps:
            self._step_loss = value if self._step_loss is None else self._step_loss + value

    def forward(self, index, module, args):
        if self._schedule is not None and self._schedule.checks and self._numerics is None and \
                index >= self.first_measured - 1:
            self._check_numerics(module, args)
        if self.measuring(index):
            tensor = call_inputs.batched_tensor(call_inputs.call_tensors(module, args))
            if tensor is not None:
                self._samples += int(tensor.shape[0])

    def _check_numerics(self, module, args):
        """The candidates' numerics on this step's call, before the step's own forward
        (numerics_check.py); a candidate they refuse, or could not check, gets no blocks after
        the current one: advisor measures it only once its numerics passed."""
        kwargs = call_inputs.call_kwargs(module)
        self._numerics = check_in_run(module, args, kwargs, self._switches,
                                      self._schedule.checks, self._device())
        self._switches.set(self._schedule.overrides(self._block))
        refused = {name for name, result in self._numerics.items() if not within(result)}
        started = self._schedule.blocks.index(self._block) + 1 if self._block is not None else 0
        self._schedule.drop(refused, started)

    def step_closed(self, step):
        """Returns True once the result is written: the run is over."""
        self._progress_at = time.monotonic()
        index, start, end = step[0], step[1], step[2]
        if self._loss_steps:
            if index >= 1:
                loss = self._step_loss
                self._losses.append(float(loss) if loss is not None else None)
            self._step_loss = None
            if len(self._losses) < self._loss_steps:
                return False
            if self._rank == 0:
                self._write({"losses": [l if l is not None and l == l and abs(l) != float("inf")
                                        else None for l in self._losses]})
            return True
        if index == self.first_measured and self._warmup_started is not None:
            self._warmup_s = time.monotonic() - self._warmup_started
            if self._device() is not None:
                torch.cuda.reset_peak_memory_stats(self._device())
        step_ms = self._step_time(start, end)
        if self._schedule is not None:
            return self._block_step_closed(index, step_ms)
        if self.measuring(index):
            self._step_ms.append(step_ms)
            if len(self._step_ms) == self._steps:
                if self._rank == 0:
                    self._write(merge_ranks(self._result(), self._other_ranks()))
                else:
                    self._write(self._result(), self._rank_path(self._rank))
                return True
        return False

    def _step_time(self, start, end):
        """The step from `start` to `end` (host ns): on the device where its ends were events
        (read when the result is written, device_steps.ms), else the host's ms."""
        if self._device_steps is not None:
            interval = self._device_steps.interval(start, end)
            if interval is not None:
                return interval
        return (end - start) / 1e6

    def _block_step_closed(self, index, step_ms):
        """Times the step into its block, and sets the knobs of the next step's block."""
        schedule = self._schedule
        # A step closes as the next one's forward begins, after that step fetched its batch: what
        # the host waited since the last close is the next step's, and this step's came before.
        (wait_ms, began_epoch), self._next_batch = self._next_batch, self.loader_waits.take()
        if index >= self.first_measured:
            self._scheduled_steps += 1
            if began_epoch and self._loader_fed:
                schedule.epoch_start_waits_ms.append(wait_ms)
            block, timed = schedule.at(index - self.first_measured)
            if block is not None:
                (block.step_ms if timed else block.settle_ms).append(step_ms)
                if timed and self._loader_fed:
                    if began_epoch:
                        block.epoch_starts.append(len(block.loader_wait_ms))
                    block.loader_wait_ms.append(wait_ms)
        elif index >= 1:  # step 0 found the model: its time is the script's start-up
            schedule.warmed_up(step_ms)
        following = index + 1 - self.first_measured
        if following < 0:
            return False
        if following == 0:  # the first block's first step has its batch: the loader is known
            self._loader_fed = self.loader_waits.fed
            schedule.drain(self.loader_waits.depth, self.loader_waits.epoch_batches,
                           every_switch=self._world_size > 1)
        if self._block is not None and self._device_steps is not None and \
                schedule.epoch_batches and schedule.leaves_block(following):
            # What an epoch's start would cost this side (advisor's EpochStart), read before the
            # schedule reads the block's steps for its pace, which waits for the device too.
            # Every block's end is waited for, so that the next block's lead is its own work
            # alone; a wait for an epoch's first batch has used this one's up: none to read.
            lead_ms = self._device_steps.host_lead_ms()
            self._block.host_lead_ms = None if self._next_batch[1] else lead_ms
        block, _ = schedule.at(following)
        if block is None or block is not self._block:
            self._end_block()
            if block is None:
                self._finish(complete=True)
                return True
            self._block = block
            self._switches.set(schedule.overrides(block))
            if self._device() is not None:
                torch.cuda.reset_peak_memory_stats(self._device())
        return False

    def _end_block(self):
        device = self._device()
        if self._block is not None and device is not None:
            self._block.peak_memory_mb = torch.cuda.max_memory_allocated(device) / 2**20

    def _finish(self, complete):
        self._switches.reset()
        result = dict(self._schedule.result(complete))
        if self._numerics is not None:
            result["numerics"] = self._numerics
        result.update(self._result_common(max(1, self._scheduled_steps)))
        if self._rank == 0:
            self._write(merge_ranks(result, self._other_ranks() if complete else []))
        else:
            self._write(result, self._rank_path(self._rank))

    def script_ended(self):
        """The script ended before the bench's end: True where what was timed is written (the
        blocks so far: the candidates that got their pairs are measured all the same)."""
        if self._schedule is None or not self._scheduled_steps:
            return False
        self._end_block()
        self._finish(complete=False)
        return True

    def _rank_path(self, rank):
        return "%s.rank%d" % (self._config["result"], rank)

    def _other_ranks(self):
        """The other ranks' results, each read once its file is complete (written under another
        name and renamed)."""
        results = []
        deadline = time.monotonic() + RANK_TIMINGS_WAIT_S
        for rank in range(1, self._world_size):
            path = self._rank_path(rank)
            while not os.path.exists(path):
                if time.monotonic() > deadline:
                    sys.stderr.write("advisor probe: rank %d wrote no timings in %.0f s after "
                                     "rank 0's\n" % (rank, RANK_TIMINGS_WAIT_S))
                    os._exit(3)
                time.sleep(0.005)
            with open(path) as result:
                results.append(json.load(result))
            os.remove(path)
        return results

    def _result(self):
        device = self._device()
        result = {"step_ms": [ms(step) for step in self._step_ms],
                  "peak_memory_mb": (torch.cuda.max_memory_allocated(device) / 2**20
                                     if device is not None else None),
                  "sites": [],
                  "fx_graph_cache": fx_graph_cache_lookups()}
        result.update(self._result_common(len(self._step_ms)))
        return result

    def _result_common(self, steps):
        loss = float(self._last_loss) if self._last_loss is not None else None
        return {"samples_per_step": max(1, round(self._samples / steps)),
                "loss": loss if loss is not None and loss == loss and abs(loss) != float("inf")
                else None,
                "warmup_s": self._warmup_s}

    def out_of_memory(self, where):
        """The script died of an out-of-memory error: where, for the autotest (the run without
        the fix ran out too, and this one did not fit either). Whichever rank ran out says it."""
        try:
            self._write({"out_of_memory": where})
        except FileExistsError:  # another rank said it first
            pass

    def skip(self, reason):
        # Every rank decides alike (the same knobs, the same script): rank 0 says so for the job.
        if self._rank == 0:
            self._write({"skipped": reason})

    def _write(self, result, path=None):
        # advisor's private folder, a name it has never given before: nothing to follow or clobber.
        # Written under a temporary name and renamed, so that a reader never sees half of it.
        path = path or self._config["result"]
        partial = path + ".partial"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            json.dump(result, out)
        os.rename(partial, path)


def fx_graph_cache_lookups():
    """Inductor's FX graph cache in this process: {"hits", "misses", "bypasses"} from torch's own
    counters (torch._dynamo.utils.counters["inductor"], torch 2.2 onwards), None where nothing was
    compiled with inductor. A hit is a graph an earlier run sharing the autotest's cache folder
    compiled (engine/script/compile_cache.h)."""
    dynamo_utils = sys.modules.get("torch._dynamo.utils")
    if dynamo_utils is None:  # never imported: nothing compiled
        return None
    inductor = dynamo_utils.counters.get("inductor", {})
    lookups = {name: int(inductor.get("fxgraph_cache_" + counter, 0))
               for name, counter in (("hits", "hit"), ("misses", "miss"), ("bypasses", "bypass"))}
    return lookups if any(lookups.values()) else None


def _slowest(own, other):
    """Each step as long as the slowest rank's, the highest peak, the least lead (the rank whose
    device an epoch's start idles longest holds the others back)."""
    own["step_ms"] = [max(a, b) for a, b in zip(own["step_ms"], other["step_ms"])]
    if "host_lead_ms" in own or "host_lead_ms" in other:
        leads = [lead for lead in (own.get("host_lead_ms"), other.get("host_lead_ms"))
                 if lead is not None]
        own["host_lead_ms"] = min(leads)
    if other.get("peak_memory_mb") is not None:
        own["peak_memory_mb"] = max(own["peak_memory_mb"] or 0.0, other["peak_memory_mb"])


def merge_ranks(own, others):
    """One worker result for the job from rank 0's and the other ranks' (the same steps, or the
    same blocks): the slowest rank's steps, the samples of every rank's batch."""
    merged = json.loads(json.dumps(own))
    for other in others:
        if "blocks" in merged:
            for block, theirs in zip(merged["blocks"], other["blocks"]):
                _slowest(block, theirs)
            waits = _longest_waits(merged.get("epoch_start_waits_ms", []),
                                   other.get("epoch_start_waits_ms", []))
            if waits:
                merged["epoch_start_waits_ms"] = waits
        else:
            _slowest(merged, other)
        merged["samples_per_step"] += other["samples_per_step"]
    return merged


def _longest_waits(own, other):
    """The job's wait for each epoch's first batch: the ranks start their epochs together, and the
    step goes on once the slowest rank has its batch."""
    both = [max(a, b) for a, b in zip(own, other)]
    return both + (own[len(both):] if len(own) > len(both) else other[len(both):])
