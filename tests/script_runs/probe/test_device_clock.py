"""GPU-true step times: the step clock's host times replaced by CUDA events' (device_clock.py),
with stand-in events whose device times the test sets."""

import unittest

from advisor_probe.device_clock import DeviceStamps
from advisor_probe.steps import BACKWARD, DATA, FORWARD, OPTIMIZER, StepClock
from fake_events import FakeEvent


class Stamped:
    """A step clock driven as the session drives it, each host time stamped with an event that
    completes at the device time given beside it."""

    def __init__(self):
        self.clock = StepClock()
        self.device_ms = None
        self.events = []
        self.stamps = DeviceStamps(self._record)

    def _record(self):
        event = FakeEvent(self.device_ms)
        self.events.append(event)
        return event

    def at(self, host_ns, device_ms):
        self.device_ms = device_ms
        self.stamps.stamp(host_ns)
        return host_ns


def run_step(s, host, device):
    """One step: forward, backward, optimizer at the host times (ns) `host`, completed by the
    device at `device` (ms); returns the step the next forward closes."""
    s.clock.backward_starts(s.at(host[0], device[0]))
    s.clock.backward_ends(s.at(host[1], device[1]))
    s.clock.optimizer_starts(s.at(host[2], device[2]))
    s.clock.optimizer_ends(s.at(host[3], device[3]))
    return s.clock.forward_starts(s.at(host[4], device[4]))


class DeviceStampsTest(unittest.TestCase):
    def test_a_forward_the_gpu_runs_long_is_long_on_the_device_clock(self):
        # The host queues the forward in 4 ms and waits for the device in the optimizer step;
        # the device runs the forward for 30 ms.
        s = Stamped()
        s.clock.forward_starts(s.at(1_000_000, 0.0))
        host_step = run_step(s, [5_000_000, 7_000_000, 7_000_000, 45_000_000, 46_000_000],
                             [30.0, 40.0, 40.0, 44.0, 45.0])
        self.assertEqual(host_step[3][0], [FORWARD, 1_000_000, 5_000_000], "the host's view: 4 ms")
        step = s.stamps.retime(host_step)
        self.assertEqual(step[0], host_step[0])
        self.assertEqual(step[1:3], [1_000_000, 45_000_000], "anchored at the first host time")
        self.assertEqual(step[3], [[FORWARD, 1_000_000, 31_000_000],
                                   [BACKWARD, 31_000_000, 41_000_000],
                                   [OPTIMIZER, 41_000_000, 45_000_000]])
        self.assertTrue(s.events[4].synchronized, "the step's end is waited for on the device")

    def test_steps_follow_on_from_the_first_ones_anchor(self):
        s = Stamped()
        s.clock.forward_starts(s.at(1_000_000, 0.0))
        first = s.stamps.retime(run_step(s, [2_000_000, 3_000_000, 3_000_000, 9_000_000,
                                             10_000_000], [5.0, 7.0, 7.0, 8.0, 9.5]))
        second = s.stamps.retime(run_step(s, [11_000_000, 12_000_000, 12_000_000, 19_000_000,
                                              20_000_000], [14.0, 16.0, 16.0, 17.0, 18.0]))
        self.assertEqual(first[2], 9_000_000)
        self.assertEqual(second[1], first[2], "a step starts where the last one ended")
        self.assertEqual(second[2], 1_000_000 + 17_000_000)
        self.assertEqual(second[3][0], [DATA, 9_000_000, 10_500_000],
                         "the wait for the batch, as the device saw it")

    def test_a_step_begun_before_the_stamps_is_left_on_the_host_clock(self):
        s = Stamped()
        s.clock.forward_starts(1_000_000)  # before the timing window began stamping
        step = run_step(s, [2_000_000, 3_000_000, 3_000_000, 9_000_000, 10_000_000],
                        [5.0, 7.0, 7.0, 8.0, 9.5])
        self.assertIsNone(s.stamps.retime(step))


if __name__ == "__main__":
    unittest.main()
