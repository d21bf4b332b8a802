"""Bench mode ends a candidate whose script stops stepping at advisor's --step-timeout, as advisor
ends a hung script, rather than after the autotest's minutes-long bound on a process."""

import os
import subprocess
import sys
import tempfile
import unittest

# A candidate run whose script never makes a step after the probe started.
HUNG_RUN = """
import os, sys, threading
from advisor_probe.bench import Bench
Bench({"result": "/nonexistent", "steps": 2, "step_timeout_s": %s}, lambda: None)
threading.Event().wait(%s)
"""


def run(timeout_s, hang_s):
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "hung.py")
        with open(script, "w") as out:
            out.write(HUNG_RUN % (timeout_s, hang_s))
        return subprocess.run([sys.executable, script], capture_output=True, text=True,
                              timeout=120)


class BenchStepTimeoutTest(unittest.TestCase):
    def test_a_run_that_stops_stepping_ends_with_124_and_says_so(self):
        ended = run(0.2, 60)
        self.assertEqual(ended.returncode, 124, ended.stderr)
        self.assertEqual(ended.stderr,
                         "advisor probe: hung.py made no training step in 0.2 s (--step-timeout)\n")

    def test_no_step_timeout_no_bound(self):
        ended = run(0, 0.5)
        self.assertEqual(ended.returncode, 0, ended.stderr)


if __name__ == "__main__":
    unittest.main()
