"""Bench mode's steps timed on the device, without waiting for it at each step's end.

Bench mode (the autotest's candidate runs and blocks, bench.py) times each measured step from the
end of the step before to its own end. Waiting for the device at each step's end, as a timing
window does (device_clock.py), empties the device's queue there: the next step's first kernels
then wait for the host to fetch its batch and launch them, time that a run without advisor hides
behind the device's backlog. The seed ViT's steps took 168.0 ms so on the H200, against 164.6 ms
in a long run of the script (its epochs' boundaries left out), while its host-bound bf16 steps
lost nothing: the GPU-bound side of a pair read slow by 2 % (docs/benchmarks.md, the seed's
autotest against long runs by hand).

Instead a CUDA event is recorded on the stream at each measured step's end, and a step's time is
the device's time from the event before it to its own, read once the run of steps is over: the
device's pace where the host kept ahead of it, the host's where the host fell behind (a batch
waited for, a launch-bound step), as a long run of the script has them.
"""

import time


class DeviceStepTimes:
    """`record` returns a new event recorded on the current stream (torch.cuda.Event with timing,
    or a test's stand-in): it has elapsed_time(later) in milliseconds and synchronize(). `clock`
    is the host's, in seconds, for host_lead_ms."""

    def __init__(self, record, clock=time.perf_counter):
        self._record = record
        self._clock = clock  # the host's, in seconds
        self._ends = {}  # host time (ns) of a measured step's end -> the event recorded then

    def step_ended(self, host_ns):
        self._ends[host_ns] = self._record()

    def host_lead_ms(self):
        """Waits for the device to finish the last measured step and returns how long that took,
        in ms: the lead the host kept over the device (an epoch's start idles the device only for
        the part of the first batch's wait beyond it). None before any measured step."""
        if not self._ends:
            return None
        last = self._ends[max(self._ends)]
        started = self._clock()
        last.synchronize()
        return (self._clock() - started) * 1e3

    def interval(self, start_ns, end_ns):
        """The step between two ends the step clock gave (host times), to be read with ms() once
        the steps are over; None where either end has no event."""
        start, end = self._ends.get(start_ns), self._ends.get(end_ns)
        # The next step starts where this one ended: the events before this one's start are done.
        for host_ns in [t for t in self._ends if t < start_ns]:
            del self._ends[host_ns]
        if start is None or end is None:
            return None
        return DeviceInterval(start, end)


class DeviceInterval:
    __slots__ = ("_start", "_end")

    def __init__(self, start, end):
        self._start = start
        self._end = end

    def ms(self):
        self._end.synchronize()  # the step's work is done on the device: a wait only the first time
        return self._start.elapsed_time(self._end)


def ms(step):
    """A step's time in ms: a float the host timed, or a DeviceInterval read now."""
    return step.ms() if isinstance(step, DeviceInterval) else step
