"""A command's measured steps: named by index by advisor (the same on every rank of a job), or
else the steps after the one in progress (which warms the new instrumentation up) and the skip."""

import unittest

from advisor_probe.session import _Command


class CommandTest(unittest.TestCase):
    def test_the_first_step_is_the_one_advisor_names(self):
        command = _Command({"op": "record", "steps": 5, "first": 12}, 9)
        self.assertEqual((command.first, command.last), (12, 16))
        self.assertTrue(command.measures(16))
        self.assertFalse(command.measures(11))

    def test_without_an_index_the_steps_follow_the_warm_up(self):
        command = _Command({"op": "time", "steps": 5, "skip": 3}, 1)
        self.assertEqual((command.first, command.last), (5, 9))


if __name__ == "__main__":
    unittest.main()
