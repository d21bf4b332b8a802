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

def queue_depth(loader):
    """The batches `loader` keeps requested from its workers ahead of the steps; 0 without
    workers, where each batch is made in the step that asks for it."""
    workers = int(getattr(loader, "num_workers", 0) or 0)
    if workers <= 0:
        return 0
    # torch 2 leaves prefetch_factor None without workers only; 1.x has 2 whatever the workers.
    return workers * int(getattr(loader, "prefetch_factor", None) or 2)


class LoaderWaits:
    """A listener of the loader hook (loader_hook.py)."""

    def __init__(self):
        self._waited_ns = 0
        self.fed = False  # a DataLoader's batch has come: the steps are fed by one
        self.depth = 0    # the queue_depth of the loader whose batch came last

    def iterated(self, loader, iterator, iter_ns):
        """iter(loader) returned `iterator`: its record, the loader's queue_depth. iter()'s own
        time is a step's, not a wait for a batch."""
        return queue_depth(loader)

    def batch(self, depth, wait_ns):
        self._waited_ns += wait_ns
        self.fed = True
        self.depth = depth

    def ended(self, depth, wait_ns):
        self._waited_ns += wait_ns

    def take_ms(self):
        """The host's wait for batches since the last call, in ms."""
        waited, self._waited_ns = self._waited_ns, 0
        return waited / 1e6
