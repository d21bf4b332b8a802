"""The line tracer that labels the lines of a module's forward or of the loss (sources.py)."""

import sys
import unittest

from advisor_probe.sources import PREFIX, LineLabels


class Ranges:
    """Records the ranges LineLabels opens and closes, as the native probe would."""

    def __init__(self):
        self.events = []

    def begin(self, name):
        self.events.append(("begin", self._line(name)))

    def next(self, name):
        self.events.append(("next", self._line(name)))

    def end(self):
        self.events.append(("end", None))

    @staticmethod
    def _line(name):
        assert name.startswith(PREFIX + __file__ + ":"), name
        return int(name.rsplit(":", 1)[1])


def line_of(function, offset):
    return function.__code__.co_firstlineno + offset


def hardest(values):
    best = 0
    for value in values:
        best = max(best, value)
    return best


class LineLabelsTest(unittest.TestCase):
    def setUp(self):
        if sys.gettrace() is not None:
            self.skipTest("the tests run under a tracer (coverage, a debugger), which it keeps")

    def test_labels_each_run_of_a_line_and_nests_the_lines_a_line_calls(self):
        ranges, seen = Ranges(), set()
        labels = LineLabels(seen, ranges)
        labels.resume()
        result = hardest([3, 1, 2])
        labels.pause()
        self.assertEqual(result, 3)
        resumed = sys._getframe().f_lineno - 4  # the line running as labelling resumed
        loop, body = line_of(hardest, 2), line_of(hardest, 3)
        # This frame's lines, and inside the one that calls hardest(), hardest()'s own: its loop's
        # body once an iteration, its return ending the range of its last line.
        self.assertEqual(ranges.events,
                         [("begin", resumed), ("next", resumed + 1),
                          ("begin", line_of(hardest, 1))] +
                         [("next", loop), ("next", body)] * 3 +
                         [("next", loop), ("next", line_of(hardest, 4)), ("end", None),
                          ("next", resumed + 2), ("end", None)])
        self.assertIn((__file__, body), seen)

    def test_nothing_is_labelled_once_paused(self):
        ranges = Ranges()
        labels = LineLabels(set(), ranges)
        labels.resume()
        labels.pause()
        recorded = len(ranges.events)
        hardest([1, 2])
        self.assertEqual(len(ranges.events), recorded)
        self.assertIsNone(sys.gettrace(), "the tracer is gone")

    def test_a_script_that_traces_itself_keeps_its_tracer(self):
        def own(frame, event, arg):
            return None

        ranges = Ranges()
        labels = LineLabels(set(), ranges)
        sys.settrace(own)
        try:
            labels.resume()
            hardest([1])
            labels.pause()
            self.assertIs(sys.gettrace(), own)
        finally:
            sys.settrace(None)
        self.assertEqual(ranges.events, [])


if __name__ == "__main__":
    unittest.main()
