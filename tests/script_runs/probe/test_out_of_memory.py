"""Where an out-of-memory error struck, read from the stack at the raise (its traceback), as the
probe reads it at the interpreter's exit. On a CPU nothing runs out of CUDA memory: the modules
here raise the error torch's caching allocator raises."""

import sys
import unittest

import torch

from advisor_probe import out_of_memory
from advisor_probe.steps import LOSS


def _runs_out():
    raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")


class RunsOutInForward(torch.nn.Module):
    def forward(self, x):
        _runs_out()


class RunsOutInBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        _runs_out()


def _traceback_of(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 (the test inspects whatever it raised)
        return error, sys.exc_info()[2]
    raise AssertionError("nothing raised")


class OutOfMemoryTest(unittest.TestCase):
    def setUp(self):
        self.model = torch.nn.Sequential(torch.nn.Linear(2, 2), RunsOutInForward())
        paths = {id(m): p for p, m in self.model.named_modules()}
        self.path_of = lambda module: paths.get(id(module))

    def test_torchs_error_of_this_version_is_recognised_and_no_other(self):
        error, _ = _traceback_of(_runs_out)
        self.assertTrue(out_of_memory.is_out_of_memory(error))
        self.assertFalse(out_of_memory.is_out_of_memory(RuntimeError("CUDA out of memory")))

    def test_a_forward_names_its_instance_and_the_users_line(self):
        _, traceback = _traceback_of(lambda: self.model(torch.ones(1, 2)))
        where = out_of_memory.where(traceback, self.path_of, LOSS)
        self.assertEqual(where["path"], "1")
        self.assertEqual(where["phase"], "forward")
        self.assertEqual(where["source"][0], __file__)
        self.assertIn("raise torch.cuda.OutOfMemoryError", where["source"][2])
        self.assertEqual(where["op"], "", "a raise in the user's own code is its source")
        module, args = out_of_memory.outermost_call(traceback)
        self.assertIs(module, self.model)
        self.assertEqual(tuple(args[0].shape), (1, 2))

    def test_a_backward_is_the_backward_phase_whatever_the_clock_says(self):
        x = torch.ones(2, requires_grad=True)
        _, traceback = _traceback_of(lambda: RunsOutInBackward.apply(x).sum().backward())
        where = out_of_memory.where(traceback, self.path_of, LOSS)
        self.assertEqual(where["phase"], "backward")
        self.assertEqual(where["path"], "")

    def test_outside_modules_and_passes_the_clock_tells_the_phase(self):
        _, traceback = _traceback_of(_runs_out)
        self.assertEqual(out_of_memory.where(traceback, self.path_of, LOSS)["phase"], "loss")


if __name__ == "__main__":
    unittest.main()
