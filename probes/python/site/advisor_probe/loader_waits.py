"""Bench mode's view of the DataLoader that feeds the steps, for the blocks (blocks.py): how many
batches it holds ready ahead of the steps, and how long the host waited for its batches in each
step.

A loader with workers keeps workers x prefetch_factor batches requested ahead; while the steps are
slower than its workers, those batches wait ready in its queue, and a faster candidate switched in
after such steps is served from that queue without waiting for the loader, at its compute speed.
A long run of that candidate waits for every batch the workers make. The blocks therefore leave
out, after a switch into a faster side, enough steps to drain that queue (BlockSchedule.drain),
and record each timed step's wait, the share of a candidate's step the input pipeline holds it
back by, and whether its batch began an epoch: a fresh iterator's first batch finds the queue
empty and waits for a worker to make it (about 190 ms on the seed script's loader), a wait a long
run pays once an epoch.
"""

from advisor_probe.loader_epochs import epoch_batches


def queue_depth(loader):
    """The batches `loader` keeps requested from its workers ahead of the steps; 0 without
    workers, where each batch is made in the step that asks for it."""
    workers = int(getattr(loader, "num_workers", 0) or 0)
    if workers <= 0:
        return 0
    # torch 2 leaves prefetch_factor None without workers only; 1.x has 2 whatever the workers.
    return workers * int(getattr(loader, "prefetch_factor", None) or 2)


class _Iterator:
    """What the waits keep of one of the loader's iterators (an epoch)."""

    __slots__ = ("depth", "epoch_batches", "first")

    def __init__(self, depth, batches):
        self.depth = depth
        self.epoch_batches = batches
        self.first = True  # its first batch, which begins an epoch, has not come


class LoaderWaits:
    """A listener of the loader hook (loader_hook.py)."""

    def __init__(self, iterable_dataset=()):
        """iterable_dataset: torch's IterableDataset class, whose loaders have no epoch length."""
        self._iterable_dataset = iterable_dataset
        self._waited_ns = 0
        self._began_epoch = False
        self.fed = False  # a DataLoader's batch has come: the steps are fed by one
        self.depth = 0    # the queue_depth of the loader whose batch came last
        self.epoch_batches = None  # and its len(), where it has one

    def iterated(self, loader, iterator, iter_ns):
        """iter(loader) returned `iterator`; iter()'s own time is a step's, not a wait for a
        batch."""
        return _Iterator(queue_depth(loader), epoch_batches(loader, self._iterable_dataset))

    def batch(self, record, wait_ns):
        self._waited_ns += wait_ns
        self._began_epoch |= record.first
        record.first = False
        self.fed = True
        self.depth = record.depth
        self.epoch_batches = record.epoch_batches

    def ended(self, record, wait_ns):
        self._waited_ns += wait_ns

    def take(self):
        """The host's wait for batches since the last call, in ms, and whether a batch since then
        was an epoch's first (a fresh iterator's: its workers' queue starts empty)."""
        waited, self._waited_ns = self._waited_ns, 0
        began, self._began_epoch = self._began_epoch, False
        return waited / 1e6, began
