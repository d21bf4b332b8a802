"""Bench mode's view of the DataLoader that feeds the steps, for the blocks (blocks.py): how many
batches it holds ready ahead of the steps, and how long the host waited for its batches in each
step.

A loader with workers keeps workers x prefetch_factor batches requested ahead; while the steps are
slower than its workers, those batches wait ready in its queue, and a faster candidate switched in
after such steps is served from that queue without waiting for the loader, at its compute speed.
A long run of that candidate waits for every batch the workers make. The blocks therefore leave
out, after each switch, enough steps to drain that queue (BlockSchedule.drain), and record each
timed step's wait, the share of a candidate's step the input pipeline holds it back by.
"""

import functools
import time
import weakref

now = time.monotonic_ns


def queue_depth(loader):
    """The batches `loader` keeps requested from its workers ahead of the steps; 0 without
    workers, where each batch is made in the step that asks for it."""
    workers = int(getattr(loader, "num_workers", 0) or 0)
    if workers <= 0:
        return 0
    # torch 2 leaves prefetch_factor None without workers only; 1.x has 2 whatever the workers.
    return workers * int(getattr(loader, "prefetch_factor", None) or 2)


class LoaderWaits:
    def __init__(self):
        self._depths = weakref.WeakKeyDictionary()  # an iterator -> its loader's queue_depth
        self._waited_ns = 0
        self.fed = False  # a DataLoader's batch has come: the steps are fed by one
        self.depth = 0    # the queue_depth of the loader whose batch came last

    def install(self, iterator_class):
        """Times every batch of the loaders' iterators (their common base class's __next__)."""
        original = iterator_class.__next__
        waits = self

        @functools.wraps(original)
        def next_batch(iterator):
            depth = waits._depths.get(iterator)
            if depth is None:
                return original(iterator)
            started = now()
            try:
                return original(iterator)
            finally:
                waits._waited_ns += now() - started
                waits.fed = True
                waits.depth = depth

        iterator_class.__next__ = next_batch

    def iterated(self, loader, iterator):
        """iter(loader) returned `iterator`."""
        try:
            self._depths[iterator] = queue_depth(loader)
        except TypeError:  # an iterator that takes no weak reference: its batches go untimed
            pass

    def take_ms(self):
        """The host's wait for batches since the last call, in ms."""
        waited, self._waited_ns = self._waited_ns, 0
        return waited / 1e6
