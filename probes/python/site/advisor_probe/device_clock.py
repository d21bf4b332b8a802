"""GPU-true step times: CUDA events at the step clock's boundaries.

The step clock (steps.py) reads the host's clock. On a GPU the host runs ahead of the device: a
forward that queues 30 ms of kernels returns in 4, and the device's backlog lands in whatever
phase the host next waits in (the optimizer's step, a loss's .item(), the step's closing
synchronisation). Measured by the host, a phase is where the host waited, not where the device
worked: a rank slowed on its GPU alone showed nothing in its data wait and forward, and advisor
called it no straggler (issue #26).

In the steps a timing window measures, the probe records a CUDA event on the current stream at
each boundary it gives the clock, and once a step has closed it replaces each host time by the
device's: the window's first host time plus the time the device took from that time's event to
this one's. An event completes when the device has done what was queued before it, or at once
where the device is idle, so a phase on the device lasts as long as its work or as long as the
host took to queue it, whichever is longer: a rank slowed by its GPU, by its host or by its input
pipeline shows it in the phase where it happened.
"""


class DeviceStamps:
    """`record` returns a new event recorded on the current stream (torch.cuda.Event with timing,
    or a test's stand-in): it has elapsed_time(later) in milliseconds and synchronize()."""

    def __init__(self, record):
        self._record = record
        self._events = {}     # host time (ns) -> the event recorded then
        self._anchor = None   # (host time, event) of the first step retimed

    def stamp(self, host_ns):
        self._events[host_ns] = self._record()

    def retime(self, step):
        """A closed step ([index, start, end, [[phase, start, end], ...]]) on the device's clock,
        or None where one of its times has no event (the stamps began after the step did)."""
        index, start, end, phases = step
        times = [start, end] + [t for _, begin, stop in phases for t in (begin, stop)]
        if any(t not in self._events for t in times):
            return None
        self._events[end].synchronize()  # the step's work is done on the device
        if self._anchor is None:
            self._anchor = (start, self._events[start])
        anchor_ns, anchor = self._anchor

        def device(host_ns):
            return anchor_ns + int(round(anchor.elapsed_time(self._events[host_ns]) * 1e6))

        retimed = [index, device(start), device(end),
                   [[phase, device(begin), device(stop)] for phase, begin, stop in phases]]
        # The next step starts where this one ended: keep that event and those after it.
        self._events = {t: event for t, event in self._events.items() if t >= end}
        return retimed
