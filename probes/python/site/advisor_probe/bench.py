"""Bench mode: the probe as the autotest's worker (engine/script/script_worker). The script runs
with the candidate's knobs; after its first step (which finds the model) and `warmup` more, the
probe times `steps` steps, or records the losses of the first `loss_steps` steps after the first,
and writes the worker result; the session then ends the process."""

import json
import os
import time

import torch


class Bench:
    def __init__(self, config, cuda_of):
        self._config = config
        self._cuda = cuda_of  # a callable: whether the model is on the GPU (known after step 0)
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

    @property
    def first_measured(self):
        """Index of the first measured step (step 0 finds the model)."""
        return 1 + self._warmup

    def measuring(self, index):
        return self._loss_steps == 0 and self.first_measured <= index

    def model_found(self):
        self._warmup_started = time.monotonic()

    def backward(self, tensors):
        tensor = tensors[0] if isinstance(tensors, (tuple, list)) and tensors else tensors
        if not isinstance(tensor, torch.Tensor) or tensor.dim() != 0:
            return
        value = tensor.detach().float()
        self._last_loss = value
        if self._loss_steps:
            self._step_loss = value if self._step_loss is None else self._step_loss + value

    def forward(self, index, args):
        if self.measuring(index):
            tensor = next((a for a in args if isinstance(a, torch.Tensor)), None)
            if tensor is not None and tensor.dim() > 0:
                self._samples += int(tensor.shape[0])

    def step_closed(self, step):
        """Returns True once the result is written: the run is over."""
        index, start, end = step[0], step[1], step[2]
        if self._loss_steps:
            if index >= 1:
                loss = self._step_loss
                self._losses.append(float(loss) if loss is not None else None)
            self._step_loss = None
            if len(self._losses) < self._loss_steps:
                return False
            self._write({"losses": [l if l is not None and l == l and abs(l) != float("inf")
                                    else None for l in self._losses]})
            return True
        if index == self.first_measured and self._warmup_started is not None:
            self._warmup_s = time.monotonic() - self._warmup_started
            if self._cuda():
                torch.cuda.reset_peak_memory_stats()
        if self.measuring(index):
            self._step_ms.append((end - start) / 1e6)
            if len(self._step_ms) == self._steps:
                self._write(self._result())
                return True
        return False

    def _result(self):
        cuda = self._cuda()
        loss = float(self._last_loss) if self._last_loss is not None else None
        return {"step_ms": self._step_ms,
                "peak_memory_mb": torch.cuda.max_memory_allocated() / 2**20 if cuda else None,
                "samples_per_step": max(1, round(self._samples / len(self._step_ms))),
                "loss": loss if loss is not None and loss == loss and abs(loss) != float("inf")
                else None,
                "sites": [],
                "warmup_s": self._warmup_s}

    def skip(self, reason):
        self._write({"skipped": reason})

    def _write(self, result):
        # advisor's private folder, a name it has never given before: nothing to follow or clobber.
        descriptor = os.open(self._config["result"], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            json.dump(result, out)
