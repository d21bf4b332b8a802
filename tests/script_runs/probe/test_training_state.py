"""What the probe measures of the training's state after the first optimizer step, and how many
of the first step's forward passes synchronised gradients."""

import unittest

import torch

from advisor_probe.training_state import TrainingState


class DistributedDataParallel(torch.nn.Module):
    """Stands in for torch's (recognised by its class name, as the probe does): no process group
    needed."""

    def __init__(self, module):
        super().__init__()
        self.module = module
        self.require_backward_grad_sync = True


class TrainingStateTest(unittest.TestCase):
    def test_parameters_gradients_and_adamw_state_in_bytes(self):
        model = torch.nn.Linear(100, 10)  # 1010 float32 parameters
        optimizer = torch.optim.AdamW(model.parameters())
        model(torch.randn(4, 100)).sum().backward()
        optimizer.step()
        state = TrainingState()
        state.measure([optimizer])
        described = state.describe()
        self.assertEqual(described["parameter_bytes"], 1010 * 4)
        self.assertEqual(described["gradient_bytes"], 1010 * 4)
        # Two moments per parameter, and a step count per tensor (a tensor on torch 2.x).
        self.assertGreaterEqual(described["optimizer_state_bytes"], 2 * 1010 * 4)
        self.assertLess(described["optimizer_state_bytes"], 2 * 1010 * 4 + 64)
        self.assertEqual(described["wrapper"], "")
        self.assertEqual(described["micro_steps"], 0)

    def test_micro_steps_and_those_that_synchronised(self):
        model = DistributedDataParallel(torch.nn.Linear(2, 2))
        state = TrainingState()
        for synchronise in (False, False, True):  # no_sync() around the first two
            model.require_backward_grad_sync = synchronise
            state.outer_call(model)
        with torch.no_grad():
            state.outer_call(model)  # an evaluation pass is no micro-step
        state.outer_call(torch.nn.CrossEntropyLoss())  # nor a loss module called outermost
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        state.measure([optimizer])
        described = state.describe()
        self.assertEqual(described["wrapper"], "DistributedDataParallel")
        self.assertEqual((described["micro_steps"], described["synced_micro_steps"]), (3, 1))
        self.assertEqual(described["gradient_bytes"], 0, "no backward ran")

    def test_nothing_to_say_before_an_optimizer_stepped(self):
        self.assertIsNone(TrainingState().describe())


if __name__ == "__main__":
    unittest.main()
