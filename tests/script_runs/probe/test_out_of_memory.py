"""Where an out-of-memory error struck, read from the stack at the raise (its traceback), as the
probe reads it at the interpreter's exit. On a CPU nothing runs out of CUDA memory: the modules
here raise the error torch's caching allocator raises."""

import contextlib
import sys
import unittest

import torch

from advisor_probe import out_of_memory
from advisor_probe.steps import LOSS


def _runs_out():
    raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")


class Block(torch.nn.Module):
    """fc, then an op whose backward runs out of memory where `runs_out`, then proj: the op
    between two Linears of one instance, as an activation or attention's softmax is."""
    def __init__(self, runs_out):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.proj = torch.nn.Linear(4, 4, bias=False)
        self.runs_out = runs_out

    def forward(self, x):
        x = self.fc(x)
        return self.proj(RunsOutInBackward.apply(x) if self.runs_out else torch.relu(x))


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block(False), Block(True), Block(False)])
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return self.head(x)


class RunsOutInForward(torch.nn.Module):
    def forward(self, x):
        _runs_out()


class RunsOutInBackward(torch.autograd.Function):
    """As an op whose backward asks for more than the device has: its saved input is still held
    when it raises (the engine frees a node's saved tensors once it ran). Disarmed, it runs."""
    armed = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        if RunsOutInBackward.armed:
            _runs_out()
        return grad * 2


@contextlib.contextmanager
def _disarmed():
    """RunsOutInBackward runs its backward: a first backward over the graph that passes."""
    RunsOutInBackward.armed = False
    try:
        yield
    finally:
        RunsOutInBackward.armed = True


class Heads(torch.nn.Module):
    """A Stack's trunk under two heads, each with a loss of its own."""
    def __init__(self):
        super().__init__()
        self.trunk = Stack()
        self.a = torch.nn.Linear(2, 1)
        self.b = torch.nn.Linear(2, 1)

    def forward(self, x):
        x = self.trunk(x)
        return self.a(x).sum(), self.b(x).pow(2).sum()


def _traceback_of(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 (the test inspects whatever it raised)
        return error, sys.exc_info()[2]
    raise AssertionError("nothing raised")


def _where_in_backward(model, backward):
    """Where the probe puts an error raised by `backward(model)`, and what it finds kept."""
    paths = {id(m): p for p, m in model.named_modules()}
    parameter_paths = {id(p): path.rpartition(".")[0] for path, p in model.named_parameters()}
    _, traceback = _traceback_of(lambda: backward(model))
    where = out_of_memory.where(traceback, lambda m: paths.get(id(m)), LOSS, parameter_paths)
    kept = out_of_memory.kept_for_backward(traceback, parameter_paths, list(model.parameters()))
    return where, kept


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

    def test_an_autotest_run_says_where_in_one_line(self):
        error, traceback = _traceback_of(lambda: self.model(torch.ones(1, 2)))
        where = out_of_memory.where(traceback, self.path_of, LOSS)
        line = out_of_memory.one_line(where, out_of_memory.message_of(error))
        self.assertRegex(line, r"^in the forward pass of 1 at test_out_of_memory\.py:\d+: ")
        self.assertTrue(line.endswith(out_of_memory.message_of(error)), line)
        self.assertNotIn("\n", line)
        nowhere = {"phase": "", "path": "", "source": None}
        self.assertEqual(out_of_memory.one_line(nowhere, "m"), "in the step: m")

    def test_a_backward_is_the_backward_phase_whatever_the_clock_says(self):
        x = torch.ones(2, requires_grad=True)
        _, traceback = _traceback_of(lambda: RunsOutInBackward.apply(x).sum().backward())
        where = out_of_memory.where(traceback, self.path_of, LOSS)
        self.assertEqual(where["phase"], "backward")
        self.assertEqual(where["path"], "")

    def test_a_backward_names_the_instance_whose_op_failed_from_the_graph_left(self):
        torch.manual_seed(0)
        model = Stack()
        paths = {id(m): p for p, m in model.named_modules()}
        parameter_paths = {id(p): path.rpartition(".")[0] for path, p in model.named_parameters()}
        # A 3-d batch: Linear's weight reaches its matmul through a transpose.
        _, traceback = _traceback_of(lambda: model(torch.randn(3, 5, 4)).sum().backward())
        where = out_of_memory.where(traceback, lambda m: paths.get(id(m)), LOSS, parameter_paths)
        self.assertEqual(where["phase"], "backward")
        self.assertEqual(where["path"], "blocks.1", "between blocks.1.fc and blocks.1.proj")

    def test_a_backward_op_reading_parameters_is_their_instances(self):
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
        parameter_paths = {id(p): path.rpartition(".")[0] for path, p in model.named_parameters()}

        def backward():
            x = model[0](torch.ones(2, 4))
            RunsOutInBackward.apply(model[1].weight).sum().mul(x.sum()).backward()
        _, traceback = _traceback_of(backward)
        where = out_of_memory.where(traceback, lambda m: None, LOSS, parameter_paths)
        self.assertEqual(where["path"], "1")

    def test_what_the_graph_keeps_is_by_instance_and_only_what_has_not_run(self):
        torch.manual_seed(0)

        where, kept = _where_in_backward(
            Stack(), lambda model: model(torch.randn(3, 5, 4)).sum().backward())
        self.assertEqual(where["path"], "blocks.1")
        # Each a 3x5x4 float tensor, once: the batch blocks.0.fc read, the relu's output (which
        # blocks.0.proj read too), blocks.1.fc's input and RunsOut's. blocks.1.proj, blocks.2 and
        # head ran: their saved tensors are freed.
        self.assertEqual({path: bytes_ for path, bytes_, _ in kept},
                         {"blocks.0.fc": 240, "blocks.0": 240, "blocks.1.fc": 240, "blocks.1": 240})

    def test_a_forward_keeps_what_its_instances_saved_so_far(self):
        class Wide(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 64)

            def forward(self, x):
                return torch.tanh(self.fc(x)).sum(-1, keepdim=True).expand(-1, 4)
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), Wide(), torch.nn.Linear(4, 4),
                                    RunsOutInForward())
        paths = {id(m): p for p, m in model.named_modules()}
        parameter_paths = {id(p): path.rpartition(".")[0] for path, p in model.named_parameters()}
        _, traceback = _traceback_of(lambda: model(torch.ones(8, 4)))
        self.assertEqual(out_of_memory.where(traceback, lambda m: paths.get(id(m)), LOSS,
                                             parameter_paths)["path"], "3")
        kept = out_of_memory.kept_for_backward(traceback, parameter_paths,
                                               list(model.parameters()))
        self.assertEqual(kept[0][:2], ["1", 8 * 64 * 4], "tanh's 8x64 output, between fc and sum")

    def test_a_backward_that_keeps_its_graph_says_it_cannot_tell(self):
        where, _ = _where_in_backward(
            Stack(), lambda model: model(torch.randn(3, 4)).sum().backward(retain_graph=True))
        self.assertEqual(where["phase"], "backward")
        self.assertEqual(where["path"], "")
        self.assertIn("retain_graph=True", where["path_note"])

    def test_a_second_backward_over_a_retained_graph_frees_as_it_runs(self):
        def backward(model):
            loss = model(torch.randn(3, 4)).sum()
            with _disarmed():
                loss.backward(retain_graph=True)
            loss.backward()
        where, _ = _where_in_backward(Stack(), backward)
        self.assertEqual((where["path"], where["path_note"]), ("blocks.1", ""))

    def test_autograd_grad_is_a_backward_over_what_it_asks_for(self):
        def grad(model):
            x = torch.randn(3, 4, requires_grad=True)
            torch.autograd.grad(model(x).sum(), [x])
        where, _ = _where_in_backward(Stack(), grad)
        self.assertEqual((where["phase"], where["path"]), ("backward", "blocks.1"))

        def beside_a_penalty(model):
            # The penalty's pow is the latest op of the forward holding a saved tensor, but a
            # gradient for x alone never runs it: the engine stopped in blocks.1.
            x = torch.randn(3, 4, requires_grad=True)
            penalty = (model.head.weight * 3).pow(2).sum()
            torch.autograd.grad(model(x).sum() + penalty, x)
        where, _ = _where_in_backward(Stack(), beside_a_penalty)
        self.assertEqual(where["path"], "blocks.1")

    def test_losses_summed_or_backwarded_in_turn_name_the_trunks_instance(self):
        def summed(model):
            loss_a, loss_b = model(torch.randn(3, 4))
            (loss_a + loss_b).backward()

        def in_turn(model):
            loss_a, loss_b = model(torch.randn(3, 4))
            with _disarmed():
                loss_a.backward(retain_graph=True)
            loss_b.backward()
        for backward in (summed, in_turn):
            where, kept = _where_in_backward(Heads(), backward)
            self.assertEqual(where["path"], "trunk.blocks.1", backward.__name__)
            self.assertNotIn("trunk.blocks.2", {path for path, _, _ in kept}, backward.__name__)

    def test_outside_modules_and_passes_the_clock_tells_the_phase(self):
        _, traceback = _traceback_of(_runs_out)
        self.assertEqual(out_of_memory.where(traceback, self.path_of, LOSS)["phase"], "loss")


if __name__ == "__main__":
    unittest.main()
