"""The probe's loss check: a window's steps whose loss was read, and those that were not finite."""

import unittest

import torch

from advisor_probe.session import Session, _Command


class LossCheckTest(unittest.TestCase):
    def window(self, losses_by_step):
        command = _Command({"op": "record", "steps": len(losses_by_step)}, 0)
        command.losses = {step: [torch.tensor(v) for v in values]
                          for step, values in losses_by_step.items()}
        return Session._loss_check(command)

    def test_a_step_is_not_finite_when_any_of_its_losses_is_not(self):
        # Gradient accumulation: two losses a step; step 2's second is NaN, step 3's first inf.
        check = self.window({1: [0.5, 0.4], 2: [0.3, float("nan")], 3: [float("inf"), 0.2]})
        self.assertEqual(check, {"steps": 3, "non_finite": 2})

    def test_a_healthy_window_and_one_without_losses(self):
        self.assertEqual(self.window({1: [0.5], 2: [0.4]}), {"steps": 2, "non_finite": 0})
        self.assertEqual(self.window({}), {"steps": 0, "non_finite": 0})


if __name__ == "__main__":
    unittest.main()
