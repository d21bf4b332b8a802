"""The line the probe adds after a launcher's crash that advisor knows the cure of: torch 1.13's
torchrun on Python 3.11, which cannot read its own default --redirects and --tee."""

import io
import sys
import unittest
from unittest import mock

from advisor_probe import bootstrap

# The frame torch 1.13's launcher fails in, compiled under its file's name.
TO_MAP = compile("def to_map(val_or_map, local_world_size):\n"
                 "    map = {}\n"
                 "    for i in range(local_world_size):\n"
                 "        map[i] = val_or_map.get(i)\n"
                 "    return map\n",
                 "/usr/lib/python3/dist-packages/torch/distributed/elastic/multiprocessing/api.py",
                 "exec")


def crash(code):
    scope = {}
    exec(code, scope)
    try:
        scope["to_map"](None, 2)
    except AttributeError:
        return sys.exc_info()
    raise AssertionError("to_map did not fail")


class LauncherCrashTest(unittest.TestCase):
    def test_the_known_crash_gets_the_line_after_its_traceback(self):
        kind, value, traceback = crash(TO_MAP)
        with mock.patch.object(sys, "excepthook", lambda *args: None), \
                mock.patch.object(sys, "stderr", io.StringIO()) as stderr:
            bootstrap._explain_launcher_crashes()
            sys.excepthook(kind, value, traceback)
            self.assertIn("add --redirects 1 --tee 1", stderr.getvalue())

    def test_another_failure_in_the_launcher_gets_nothing(self):
        other = compile("def to_map(val_or_map, local_world_size):\n"
                        "    return val_or_map.get(0)\n", "/home/user/train.py", "exec")
        kind, value, traceback = crash(other)
        self.assertFalse(bootstrap._is_known_launcher_crash(kind, traceback))
        self.assertFalse(bootstrap._is_known_launcher_crash(ValueError, crash(TO_MAP)[2]))


if __name__ == "__main__":
    unittest.main()
