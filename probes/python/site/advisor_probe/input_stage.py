"""The input pipeline measured for advisor, from the main process's side (docs/script-mode.md,
"Inside the input pipeline").

Every DataLoader the script iterates starts its workers with stage_worker.WorkerInit, which
instruments each worker's copy of the Dataset. A private folder (mode 0700) holds the flag they
read (one shared page) and one file of batch records per worker; it lies in advisor's own
private folder, which advisor removes even where the script is killed. When advisor asks for the input
stage with a window, the main process turns the flag on as the window's warm-up step begins
(batches in flight when the window starts are measured too), instruments its own Dataset instead
where the loader has no workers, and at the window's end turns it off and sends advisor every
batch record of that window, merged into one table of pieces and one of lines. Which batches fall
in the window, and what the medians and shares are, advisor works out (engine/analysis).
"""

import atexit
import glob
import json
import linecache
import mmap
import os
import shutil
import tempfile
import weakref

from advisor_probe import stage_worker


class InputStage:
    def __init__(self, parent=None):
        """parent: where the private folder goes (advisor's own, which advisor removes however
        the script ends); the system's temporary folder by default."""
        self._pid = os.getpid()
        self._folder = tempfile.mkdtemp(prefix="advisor-input-", dir=parent)
        path = os.path.join(self._folder, "flag")
        with open(path, "wb") as flag_file:
            flag_file.write(bytes(stage_worker.FLAG_BYTES))
        with open(path, "r+b") as flag_file:
            self._flag = mmap.mmap(flag_file.fileno(), stage_worker.FLAG_BYTES)
        self._generation = 0
        self._loader = None        # the loader iterated last (a weak reference)
        self._workers = None       # its workers in the window being measured
        self._main_records = []    # batches the main process prepared itself (workers 0)
        self._remove_main = None
        self._offsets = {}         # worker file -> bytes read already
        atexit.register(self.close)

    def iterating(self, loader):
        """DataLoader.__iter__ is about to start: its workers (if it starts any) get the probe's
        worker_init_fn. Returns what puts the loader's own back once they are started."""
        self._loader = weakref.ref(loader)
        if not loader.num_workers:
            return lambda: None
        original = loader.worker_init_fn
        loader.worker_init_fn = stage_worker.WorkerInit(original, self._folder)
        return lambda: setattr(loader, "worker_init_fn", original)

    def start(self):
        loader = self._loader() if self._loader is not None else None
        self._workers = None if loader is None else int(loader.num_workers)
        if loader is None:
            return
        self._generation += 1
        self._main_records = []
        self._flag[4:8] = self._generation.to_bytes(4, "little")
        self._flag[0] = 1
        if not loader.num_workers:
            pipeline = stage_worker.Pipeline(loader.dataset, self._flag,
                                             self._main_records.append, 0)
            try:
                self._remove_main = pipeline.install()
            except Exception:  # noqa: BLE001 (a Dataset the probe cannot instrument runs as it is)
                pipeline.remove()

    def finish(self):
        """The window's batch records, merged; None where no DataLoader was iterated."""
        self._flag[0] = 0
        if self._remove_main is not None:
            self._remove_main()
            self._remove_main = None
        if self._workers is None:
            return None
        records = self._main_records + self._worker_records()
        return _merge([r for r in records if r.get("gen") == self._generation], self._workers)

    def close(self):
        if os.getpid() == self._pid:
            shutil.rmtree(self._folder, ignore_errors=True)

    def _worker_records(self):
        records = []
        for path in glob.glob(os.path.join(self._folder, "worker-*.jsonl")):
            try:
                with open(path, "rb") as records_file:
                    records_file.seek(self._offsets.get(path, 0))
                    text = records_file.read()
            except OSError:
                continue
            complete = text[:text.rfind(b"\n") + 1]  # a worker may be writing its last line
            self._offsets[path] = self._offsets.get(path, 0) + len(complete)
            for line in complete.splitlines():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    continue
        return records


def _located(where):
    if not where:
        return None
    filename, line = where
    return [filename, line, linecache.getline(filename, line).strip()]


def _merge(records, workers):
    """One message from the workers' records: a table of pieces (by their path in the Dataset)
    and one of lines, and each batch naming them by index."""
    pieces, piece_index = [], {}
    lines, line_index, line_ops = [], {}, []
    batches, output = [], None
    for record in sorted(records, key=lambda r: r["start"]):
        for path, description in record["described"].items():
            if path not in piece_index:
                piece_index[path] = len(pieces)
                pieces.append(dict(description, path=path,
                                   defined_at=_located(description.get("defined_at")),
                                   called_at=_located(description.get("called_at"))))
        for path in record["pieces"]:
            if path not in piece_index:  # described in a batch outside the window
                piece_index[path] = len(pieces)
                pieces.append({"path": path, "name": path})
        for key in record["lines"]:
            if key not in line_index:
                line_index[key] = len(lines)
                filename, _, number = key.rpartition(":")
                lines.append([filename, int(number)])
                line_ops.append({})
        for key, ops in record["ops"].items():
            if key in line_index:
                totals = line_ops[line_index[key]]
                for op, ns in ops.items():
                    totals[op] = totals.get(op, 0) + ns
        output = output or record.get("output")
        batches.append({"worker": record["worker"], "start": record["start"],
                        "end": record["end"], "items": record["items"],
                        "items_ns": record["items_ns"],
                        "pieces": [[piece_index[p], ns] for p, ns in record["pieces"].items()],
                        "sampled": record["sampled"], "sampled_ns": record["sampled_ns"],
                        "lines": [[line_index[k], ns] for k, ns in record["lines"].items()]})
    for entry, ops in zip(lines, line_ops):
        entry.append(linecache.getline(entry[0], entry[1]).strip())
        entry.append(max(ops, key=ops.get) if ops else "")
    return {"workers": workers, "cores": len(os.sched_getaffinity(0)),
            "output": output, "pieces": pieces, "lines": lines, "batches": batches}
