"""The probe's one wrapper of the DataLoader's iterators: the session's `DataLoader.__iter__`
hands it each iterator of a loader, and its `__next__` times each batch of those iterators for its
listeners, loader_waits.py (bench mode's blocks) and loader_epochs.py (bisect mode's windows), of
which one run has one.

A listener has `iterated(loader, iterator, iter_ns)`, which returns what it keeps of that iterator
(its record), `batch(record, wait_ns)` for each batch it yielded, and `ended(record, wait_ns)` for
the `__next__` that raised StopIteration (an epoch's end). A batch of an iterator no listener was
handed (an iterator made while the session was not active) costs the wrapper's call and a lookup,
as each listener's own wrapper cost before."""

import functools
import time
import weakref

now = time.monotonic_ns


class LoaderHook:
    def __init__(self, listeners):
        self._listeners = tuple(listeners)
        self._records = weakref.WeakKeyDictionary()  # an iterator -> ((listener, record), ...)

    def install(self, iterator_class):
        """Times every batch of the loaders' iterators (their common base class's __next__)."""
        original = iterator_class.__next__
        records_of = self._records

        @functools.wraps(original)
        def next_batch(iterator):
            records = records_of.get(iterator)
            if records is None:
                return original(iterator)
            started = now()
            try:
                batch = original(iterator)
            except StopIteration:
                waited = now() - started
                for listener, record in records:
                    listener.ended(record, waited)
                raise
            waited = now() - started
            for listener, record in records:
                listener.batch(record, waited)
            return batch

        iterator_class.__next__ = next_batch

    def iterated(self, loader, iterator, iter_ns):
        """iter(loader) returned `iterator` after iter_ns."""
        try:
            self._records[iterator] = ()
        except TypeError:  # an iterator that takes no weak reference: its batches go untimed
            return
        self._records[iterator] = tuple(
            (listener, listener.iterated(loader, iterator, iter_ns))
            for listener in self._listeners)
