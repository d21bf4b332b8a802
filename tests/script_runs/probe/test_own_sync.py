"""The probe's own device synchronisation runs inside a range of advisor's own (own_sync.py), which
the native op probe leaves out of the window without losing the ops after it."""

import os
import unittest

import torch

from advisor_probe import own_sync


class Recorded:
    """Records the ranges opened and closed and the waits, in order, as the native probe and
    torch.cuda would see them."""

    def __init__(self, fail=False):
        self.events = []
        self.fail = fail

    def begin(self, name):
        self.events.append(("begin", name))

    def end(self):
        self.events.append(("end",))

    def wait(self, device):
        self.events.append(("wait", device))
        if self.fail:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")


class OwnSyncTest(unittest.TestCase):
    def test_the_wait_runs_inside_an_advisor_range(self):
        recorded = Recorded()
        own_sync.synchronize(3, recorded, recorded.wait)
        self.assertEqual(recorded.events,
                         [("begin", "advisor::synchronize"), ("wait", 3), ("end",)])

    def test_a_wait_that_raises_still_closes_its_range(self):
        recorded = Recorded(fail=True)
        with self.assertRaises(RuntimeError):
            own_sync.synchronize(0, recorded, recorded.wait)
        self.assertEqual(recorded.events[-1], ("end",), "the next op is not taken for advisor's")


LIBRARY = os.path.join(os.environ.get("ADVISOR_PROBE_DIR", ""), "libadvisor_probe.so")


@unittest.skipUnless(os.path.isfile(LIBRARY), "the probe library is built with advisor")
class NativeOwnRangeTest(unittest.TestCase):
    def test_the_ops_inside_are_left_out_and_those_after_recorded(self):
        torch.ops.load_library(LIBRARY)
        x = torch.ones(4)
        torch.ops.advisor.probe_start(False, False)
        with torch.autograd.profiler.record_function("Optimizer.step#SGD.step"):
            x.add(1)
            own_sync.synchronize(None, own_sync.NativeOwnRanges(), lambda device: x.mul(2))
            x.sub(3)
        events = torch.ops.advisor.probe_finish()
        for name in ["Optimizer.step#SGD.step", "aten::add", "aten::sub"]:
            self.assertIn('"%s"' % name, events)
        self.assertNotIn('"aten::mul"', events, "the probe's wait is no op of the model's")
        self.assertNotIn("advisor::", events)


if __name__ == "__main__":
    unittest.main()
