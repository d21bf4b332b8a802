"""Cutting the script's run into training steps, each cut into phase stretches.

A step ends where its last optimizer step ends; that is known only when the next forward of the
model begins (a second optimizer may step first). Between backward passes and the optimizer, the
gap after a backward pass is data (the next micro-batch is fetched: gradient accumulation) when a
forward follows, and optimizer work (gradient clipping, unscaling) when the optimizer steps next.
The loss is its own stretch: from the return of the model's outermost forward to backward(), the
script's own code runs (its loss function, metrics, logging); a second call of the model in the
same pass (a triplet's three inputs) is forward again. Times are time.monotonic_ns(), the clock of
the native probe (CLOCK_MONOTONIC, as C++'s steady_clock on Linux).

An evaluation between steps (the model called without gradients once an optimizer step has
ended: a validation loop at an epoch's end) is none of the step's phases: it neither closes a
step nor opens one, and its stretches, with the waits for the evaluation's own batches between
its calls, are OUTSIDE, in the step that the next training forward opens. Counted as that step's
forward, a segmentation script's two validation batches read as 70 ms of forward in a 30 ms one.
"""

# The phase codes of advisor's timeline (engine/timeline/timeline.h, Phase).
DATA, FORWARD, BACKWARD, OPTIMIZER, OUTSIDE, LOSS = 0, 1, 2, 3, 4, 5


class StepClock:
    def __init__(self):
        self.completed = 0           # steps closed so far; the next closed step has this index
        self._start = None           # start of the step in progress; None before the first forward
        self._stretches = []         # [phase, start] of the step in progress, in time order
        self._optimizer_end = None   # end of the last optimizer step since the last forward
        self._evaluation_end = None  # end of the last evaluation call since the last forward

    @property
    def optimizer_stepped(self):
        """An optimizer step ended since the model's last forward: the step in progress is done."""
        return self._optimizer_end is not None

    @property
    def phase(self):
        """The phase code of the stretch in progress; None before the first forward."""
        return self._stretches[-1][0] if self._stretches else None

    @property
    def in_progress(self):
        """The index of the step in progress: once its optimizer step has ended, what follows
        (the wait for the next batch) is the next step's."""
        return self.completed + (1 if self._optimizer_end is not None else 0)

    def forward_starts(self, now):
        """The model's forward begins; returns the step this closes ([index, start, end, phases])
        or None."""
        closed = None
        if self._optimizer_end is not None:
            # An evaluation since the optimizer step is the next step's, as the wait for its batch.
            after = [s for s in self._stretches if s[1] >= self._optimizer_end]
            closed = self._close(self._optimizer_end)
            self._start = self._optimizer_end
            self._stretches = [[DATA, self._start]] + after
            self._optimizer_end = None
            self._evaluation_end = None
        elif self._start is None:
            self._start = now  # the first step: what came before it is set-up, not data
        if not self._stretches or self._stretches[-1][0] != FORWARD:
            self._stretches.append([FORWARD, now])
        return closed

    def forward_ends(self, now):
        """The model's outermost forward returned in a training pass: what runs until the next
        forward or backward() is the loss."""
        if self._start is not None and self._stretches and self._stretches[-1][0] == FORWARD:
            self._stretches.append([LOSS, now])

    def evaluation_starts(self, now):
        """The model is called without gradients after an optimizer step (optimizer_stepped)."""
        if self._start is None:
            return
        last = self._stretches[-1]
        if last[0] == DATA and last[1] == self._evaluation_end:
            self._stretches.pop()  # the wait for the evaluation's next batch is the evaluation's
        elif last[0] != OUTSIDE:
            self._stretches.append([OUTSIDE, now])

    def evaluation_ends(self, now):
        if self._start is not None:
            self._stretches.append([DATA, now])  # provisional: see evaluation_starts
            self._evaluation_end = now

    def backward_starts(self, now):
        if self._start is not None:
            self._stretches.append([BACKWARD, now])

    def backward_ends(self, now):
        if self._start is not None:
            self._stretches.append([DATA, now])  # provisional: see optimizer_starts

    def optimizer_starts(self, now):
        if self._start is None:
            return
        last = self._stretches[-1]
        if last[0] == DATA and len(self._stretches) > 1 and self._stretches[-2][0] == BACKWARD:
            last[0] = OPTIMIZER  # clipping or unscaling between backward and the optimizer step
        elif last[0] != OPTIMIZER:
            self._stretches.append([OPTIMIZER, now])

    def optimizer_ends(self, now):
        if self._start is not None:
            self._optimizer_end = now

    def _close(self, end):
        phases = []
        for i, (phase, start) in enumerate(self._stretches):
            stop = self._stretches[i + 1][1] if i + 1 < len(self._stretches) else end
            stop = min(stop, end)
            if stop > start:
                phases.append([phase, start, stop])
        step = [self.completed, self._start, end, phases]
        self.completed += 1
        return step
