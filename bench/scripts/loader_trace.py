#!/usr/bin/env python3
"""Where the seed script's input pipeline and its main thread spend their time, process by process:
each DataLoader worker's time making a batch's items (vit_train.RandomImages.__getitem__), the
pin-memory thread's time pinning each batch, the garbage collector's pauses in the main process,
and each training step's host phases in the main thread (the wait for its batch, the forward's
calls up to the loss, backward(), the optimizer's step, the rest) with the main thread's CPU time,
by the setting the step ran (its logits' dtype, TF32, deterministic algorithms). It asks why
advisor's run of blocks for the seed's combination got its batches about 1.4x slower than a plain
process running blocks of the same shape (docs/benchmarks.md, nineteenth session).

    ADVISOR_LOADER_TRACE=DIR python3 bench/scripts/vit_train_traced.py [vit_train.py's options]
    python3 bench/seed_by_hand.py --loader-trace DIR [...]
    python3 bench/scripts/loader_trace.py DIR [DIR ...]      # the table, a row per process

Each process appends JSON lines to DIR/<pid>.jsonl as it goes (advisor ends its runs with
os._exit, which runs no exit handler): a worker a line per ITEMS_A_LINE items, the main process a
line per PINS_A_LINE pinned batches and per GC_A_LINE collections, and a line per CPU_A_LINE
seconds of the whole machine's busy cores (from /proc/stat), so that a slower worker can be told
apart: more CPU time a batch (more work, or more threads spinning) or the same CPU time and more
wall (other processes on its cores).
"""

import gc
import json
import os
import statistics
import sys
import threading
import time

ITEMS_A_LINE = 128  # the seed's batch
PINS_A_LINE = 16
GC_A_LINE = 256
STEPS_A_LINE = 32
CPU_A_LINE = 16  # seconds, a sample a second


class _Lines:
    """This process's file, opened in the process that writes (a forked worker opens its own)."""

    def __init__(self, directory):
        self._directory = directory
        self._pid = None
        self._file = None

    def write(self, record):
        if self._pid != os.getpid():
            self._pid = os.getpid()
            os.makedirs(self._directory, exist_ok=True)
            self._file = open(os.path.join(self._directory, "%d.jsonl" % self._pid), "a")
        record.update(pid=self._pid, ppid=os.getppid(), t=time.monotonic())
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()


def install(directory, dataset_class):
    """Times `dataset_class.__getitem__` in whichever process calls it, the pin-memory thread's
    pin_memory and this process's collections, into `directory`."""
    lines = _Lines(directory)
    lines.write({"kind": "start", "argv": sys.argv[:3]})

    original_item = dataset_class.__getitem__
    items = {"pid": None, "count": 0, "busy_s": 0.0, "cpu_s": 0.0, "since": 0.0}

    def timed_item(self, index):
        started = time.perf_counter()
        cpu_started = time.process_time()
        item = original_item(self, index)
        now = time.perf_counter()
        cpu = time.process_time() - cpu_started
        if items["pid"] != os.getpid():  # a fresh worker: its own counts, and what it may use
            import torch
            items.update(pid=os.getpid(), count=0, busy_s=0.0, cpu_s=0.0, since=started)
            lines.write({"kind": "worker", "cores": len(os.sched_getaffinity(0)),
                         "torch_threads": torch.get_num_threads()})
        items["count"] += 1
        items["busy_s"] += now - started
        items["cpu_s"] += cpu
        if items["count"] == ITEMS_A_LINE:
            lines.write({"kind": "items", "items": ITEMS_A_LINE, "busy_s": items["busy_s"],
                         "cpu_s": items["cpu_s"], "wall_s": now - items["since"]})
            items.update(count=0, busy_s=0.0, cpu_s=0.0, since=now)
        return item

    dataset_class.__getitem__ = timed_item

    from torch.utils.data._utils import pin_memory as pin_module
    original_pin = pin_module.pin_memory
    pins = []

    def timed_pin(data, *args, **kwargs):
        started = time.perf_counter()
        pinned = original_pin(data, *args, **kwargs)
        pins.append(time.perf_counter() - started)
        if len(pins) == PINS_A_LINE:
            lines.write({"kind": "pins", "pin_s": list(pins)})
            pins.clear()
        return pinned

    pin_module.pin_memory = timed_pin  # _pin_memory_loop looks it up in its module at each batch

    pauses = {"started": 0.0, "by_generation": [[], [], []]}

    def collected(phase, info):
        if phase == "start":
            pauses["started"] = time.perf_counter()
            return
        by_generation = pauses["by_generation"]
        by_generation[info["generation"]].append(time.perf_counter() - pauses["started"])
        if sum(len(g) for g in by_generation) >= GC_A_LINE:
            lines.write({"kind": "gc", "pause_s": [list(g) for g in by_generation]})
            pauses["by_generation"] = [[], [], []]

    gc.callbacks.append(collected)
    _StepPhases(lines).install()
    threading.Thread(target=_sample_busy_cores, args=(lines,), daemon=True).start()


class _StepPhases:
    """The main thread's host time in each phase of a step, between the returns of the DataLoader
    iterator's __next__: `wait` (in __next__), `forward` (from the batch to the call of the seed's
    nn.CrossEntropyLoss: the copies to the device, the model's call, advisor's hooks on it),
    `loss`, `backward`, `optimizer` (the optimizer's step, its hooks included) and `rest`; `cpu` is
    the main thread's CPU time over the step. Patched at the classes, so that a compiled forward is
    left as it is; torch 2's global optimizer hooks mark the optimizer's step."""

    PHASES = ("wait", "forward", "loss", "backward", "optimizer", "rest")

    def __init__(self, lines):
        self._lines = lines
        self._marks = {}
        self._last = None  # (perf_counter, thread_time) where the last batch came
        self._tag = None
        self._steps = []

    def _mark(self, name):
        self._marks[name] = time.perf_counter()

    def install(self):
        import torch
        from torch.utils.data import dataloader

        phases = self
        for iterator_class in (dataloader._MultiProcessingDataLoaderIter,
                               dataloader._SingleProcessDataLoaderIter):
            original_next = iterator_class.__next__

            def timed_next(iterator, _original=original_next):
                phases._mark("asked")
                batch = _original(iterator)
                phases._batch_came()
                return batch

            iterator_class.__next__ = timed_next

        loss_class = torch.nn.CrossEntropyLoss
        original_call = loss_class.__call__

        def timed_loss(module, logits, *args, **kwargs):
            phases._mark("loss")
            phases._tag = (str(logits.dtype).replace("torch.", ""),
                           bool(torch.backends.cuda.matmul.allow_tf32),
                           bool(torch.are_deterministic_algorithms_enabled()))
            loss = original_call(module, logits, *args, **kwargs)
            phases._mark("loss_done")
            return loss

        loss_class.__call__ = timed_loss
        original_backward = torch.Tensor.backward

        def timed_backward(tensor, *args, **kwargs):
            phases._mark("backward")
            try:
                return original_backward(tensor, *args, **kwargs)
            finally:
                phases._mark("backward_done")

        torch.Tensor.backward = timed_backward
        from torch.optim import optimizer
        optimizer.register_optimizer_step_pre_hook(lambda *_: phases._mark("optimizer"))
        optimizer.register_optimizer_step_post_hook(lambda *_: phases._mark("optimizer_done"))

    def _batch_came(self):
        now, cpu = time.perf_counter(), time.thread_time()
        marks, last = self._marks, self._last
        self._last = (now, cpu)
        self._marks = {}
        needed = ("asked", "loss", "loss_done", "backward", "backward_done", "optimizer",
                  "optimizer_done")
        if last is None or any(name not in marks for name in needed):
            return  # the first batch, or an iteration with no training step (a probe's check)
        came = last[0]
        self._steps.append({
            "tag": list(self._tag), "step": now - came, "cpu": cpu - last[1],
            "wait": now - marks["asked"], "forward": marks["loss"] - came,
            "loss": marks["loss_done"] - marks["loss"],
            "backward": marks["backward_done"] - marks["backward"],
            "optimizer": marks["optimizer_done"] - marks["optimizer"],
            "rest": marks["asked"] - marks["optimizer_done"]
            + marks["backward"] - marks["loss_done"] + marks["optimizer"] - marks["backward_done"]})
        if len(self._steps) == STEPS_A_LINE:
            self._lines.write({"kind": "steps", "steps": self._steps})
            self._steps = []


def _busy_and_total():
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def _sample_busy_cores(lines):
    """The whole machine's busy cores a second, from the main process only (a forked worker
    has no copy of this thread)."""
    cores = os.cpu_count()
    samples = []
    busy, total = _busy_and_total()
    while True:
        time.sleep(1.0)
        now_busy, now_total = _busy_and_total()
        if now_total > total:
            samples.append(cores * (now_busy - busy) / (now_total - total))
        busy, total = now_busy, now_total
        if len(samples) == CPU_A_LINE:
            lines.write({"kind": "cpu", "busy_cores": samples})
            samples = []


def _summary(directory):
    """A row per main process (its workers' lines under it), in start order."""
    records = []
    for name in os.listdir(directory):
        with open(os.path.join(directory, name)) as lines:
            records.extend(json.loads(line) for line in lines if line.strip())
    starts = sorted((r for r in records if r["kind"] == "start"), key=lambda r: r["t"])
    rows = []
    for start in starts:
        pid = start["pid"]
        mine = [r for r in records if r["pid"] == pid]
        workers = [r for r in records if r["kind"] == "items" and r["ppid"] == pid]
        limits = [r for r in records if r["kind"] == "worker" and r["ppid"] == pid]
        busy_cores = [c for r in mine if r["kind"] == "cpu" for c in r["busy_cores"]]
        pins = [s for r in mine if r["kind"] == "pins" for s in r["pin_s"]]
        pauses = [[s for r in mine if r["kind"] == "gc" for s in r["pause_s"][g]] for g in range(3)]
        ends = [r["t"] for r in records if r["pid"] == pid or r["ppid"] == pid]
        span_s = max(ends) - start["t"] if ends else 0.0
        rows.append({
            "pid": pid, "span_s": span_s, "workers": len({r["pid"] for r in workers}),
            "batch_busy_ms": 1e3 * statistics.median(r["busy_s"] for r in workers)
            if workers else None,
            "batch_wall_ms": 1e3 * statistics.median(r["wall_s"] for r in workers)
            if workers else None,
            "batch_cpu_ms": 1e3 * statistics.median(r["cpu_s"] for r in workers)
            if workers else None,
            "batches": len(workers),
            "worker_cores": sorted({r["cores"] for r in limits}),
            "worker_threads": sorted({r["torch_threads"] for r in limits}),
            "busy_cores": statistics.median(busy_cores) if busy_cores else None,
            "pin_ms": 1e3 * statistics.median(pins) if pins else None,
            "pin_max_ms": 1e3 * max(pins) if pins else None,
            "gc_ms": [1e3 * sum(g) for g in pauses], "gc_max_ms": 1e3 * max(
                (s for g in pauses for s in g), default=0.0),
            "gc_counts": [len(g) for g in pauses]})
    return rows


def _phase_rows(directory):
    """A row per main process and setting: the median of each phase of its steps, in ms."""
    rows = []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as lines:
            steps = [step for line in lines if line.strip()
                     for record in [json.loads(line)] if record["kind"] == "steps"
                     for step in record["steps"]]
        by_tag = {}
        for step in steps:
            by_tag.setdefault(tuple(step["tag"]), []).append(step)
        for tag, tagged in sorted(by_tag.items()):
            rows.append((name.split(".")[0], tag, len(tagged),
                         {phase: 1e3 * statistics.median(s[phase] for s in tagged)
                          for phase in ("step", "cpu") + _StepPhases.PHASES}))
    return rows


def main():
    for directory in sys.argv[1:]:
        print("## %s: the main thread's steps, medians in ms" % directory)
        print("| process | logits, TF32, deterministic | steps | step | its CPU | wait | forward "
              "| loss | backward | optimizer | rest |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for pid, tag, count, medians in _phase_rows(directory):
            print("| %s | %s | %d | %s |" % (pid, ", ".join(map(str, tag)), count, " | ".join(
                "%.1f" % medians[phase] for phase in ("step", "cpu") + _StepPhases.PHASES)))
        print("## %s: the input pipeline" % directory)
        print("| process | seconds | workers (cores, torch threads) | batches | a batch's items, "
              "busy / CPU / wall ms | pin ms (max) | GC pauses ms by generation (count) | "
              "longest GC ms | machine's busy cores, median |")
        print("| --- | ---: | --- | ---: | --- | --- | --- | ---: | ---: |")
        for row in _summary(directory):
            def ms(value):
                return "-" if value is None else "%.1f" % value
            print("| %d | %.0f | %d (%s, %s) | %d | %s / %s / %s | %s (%s) | %s | %.1f | %s |" % (
                row["pid"], row["span_s"], row["workers"],
                "/".join(map(str, row["worker_cores"])) or "-",
                "/".join(map(str, row["worker_threads"])) or "-", row["batches"],
                ms(row["batch_busy_ms"]), ms(row["batch_cpu_ms"]), ms(row["batch_wall_ms"]),
                ms(row["pin_ms"]), ms(row["pin_max_ms"]),
                ", ".join("%.0f (%d)" % (total, count)
                          for total, count in zip(row["gc_ms"], row["gc_counts"])),
                row["gc_max_ms"], ms(row["busy_cores"])))


if __name__ == "__main__":
    main()
