"""What starting an epoch costs the DataLoader the training loop iterates (docs/script-mode.md,
"Epochs"), measured in the steps the controller's commands measure.

A loader without persistent workers shuts its worker processes down as an epoch ends (the
`__next__` that raises StopIteration) and forks or spawns them again in `iter(loader)`; the
fresh iterator's first batch then waits for the workers to start (their worker_init_fn, the
Dataset they unpickle) and to prepare it. Each restart of a loader (its second epoch on: the first
starts its workers whatever the settings) that falls in a measured step is timed from that end
through `iter()` to the first batch; every later batch's wait in a measured step is timed too,
the steady wait the controller subtracts. A loader built anew each epoch never restarts, and
persistent workers could not keep its workers either. A listener of the loader hook
(loader_hook.py).

The training loop's loader is the one whose batch a backward pass followed: a validation loader's
batches are never backpropagated. Outside measured steps each batch costs the wrapper's call, a
lookup and two clock reads.
"""

import weakref


def epoch_batches(loader, iterable_dataset):
    """len(loader), an epoch's batches; None for an iterable Dataset (its length, where it has
    one, says nothing of what its workers yield) and for a sampler without a length."""
    if isinstance(getattr(loader, "dataset", None), iterable_dataset):
        return None
    try:
        return len(loader)
    except Exception:  # noqa: BLE001 (a sampler or Dataset whose length cannot be told)
        return None


class _Loader:
    """One DataLoader's epochs, and what the command in progress measured of them."""

    __slots__ = ("description", "epochs", "ending_ns", "first_pending", "starting_ns", "starts",
                 "waits")

    def __init__(self):
        self.description = None     # workers, persistent, epoch_batches, as its last iter() saw
        self.epochs = 0             # iter() calls
        self.ending_ns = 0          # the last epoch's end: the __next__ that raised StopIteration
        self.first_pending = False  # iter() returned, the epoch's first batch has not
        self.starting_ns = None     # a measured restart until its first batch: its end and iter()
        self.starts = []            # ns, each measured restart through its first batch
        self.waits = []             # ns, each later batch of the measured steps


class LoaderEpochs:
    def __init__(self, measuring, iterable_dataset):
        """measuring(): whether the step in progress is one a command measures;
        iterable_dataset: torch's IterableDataset class."""
        self._measuring = measuring
        self._iterable_dataset = iterable_dataset
        self._loaders = weakref.WeakKeyDictionary()    # DataLoader -> _Loader
        self._last = None      # the _Loader whose batch came last
        self._training = None  # the _Loader whose batch a backward pass followed last

    def iterated(self, loader, iterator, iter_ns):
        """iter(loader) returned `iterator` after iter_ns: the loader's record, for its batches."""
        state = self._loaders.get(loader)
        if state is None:
            state = self._loaders[loader] = _Loader()
        state.epochs += 1
        state.description = {"workers": int(loader.num_workers),
                             "persistent": bool(loader.persistent_workers),
                             "epoch_batches": epoch_batches(loader, self._iterable_dataset)}
        restart = state.epochs > 1 and self._measuring()
        state.first_pending = True
        state.starting_ns = state.ending_ns + iter_ns if restart else None
        state.ending_ns = 0
        return state

    def ended(self, loader, wait_ns):
        """The loader's epoch ended: its iterator's __next__ raised StopIteration after wait_ns."""
        loader.ending_ns = wait_ns

    def trained(self):
        """A backward pass begins: the last batch was the training loop's."""
        self._training = self._last

    def take(self):
        """What the command's measured steps saw of the training loop's loader, as the reply's
        "loader" (docs/script-mode.md, "The protocol"); None before a backward followed a batch.
        Every loader's records start afresh for the next command."""
        training = self._training
        message = None
        if training is not None:
            message = dict(training.description, starts=training.starts, waits=training.waits)
        for state in list(self._loaders.values()) + ([training] if training else []):
            state.starts, state.waits = [], []
        return message

    def batch(self, loader, wait_ns):
        self._last = loader
        first, loader.first_pending = loader.first_pending, False
        starting, loader.starting_ns = loader.starting_ns, None
        if not self._measuring():
            return
        if starting is not None:
            loader.starts.append(starting + wait_ns)
        elif not first:  # an epoch's first batch is no steady one, restart measured or not
            loader.waits.append(wait_ns)
