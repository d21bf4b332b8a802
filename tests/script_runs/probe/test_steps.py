"""The probe's step clock: where steps end and how they are cut into phases."""

import unittest

from advisor_probe.steps import BACKWARD, DATA, FORWARD, LOSS, OPTIMIZER, OUTSIDE, StepClock


class StepClockTest(unittest.TestCase):
    def test_a_step_closes_when_the_next_forward_begins(self):
        clock = StepClock()
        self.assertIsNone(clock.forward_starts(10))
        clock.backward_starts(20)
        clock.backward_ends(30)
        clock.optimizer_starts(32)
        clock.optimizer_ends(40)
        self.assertTrue(clock.optimizer_stepped)
        step = clock.forward_starts(50)
        self.assertEqual(step, [0, 10, 40, [[FORWARD, 10, 20], [BACKWARD, 20, 30],
                                            [OPTIMIZER, 30, 40]]])
        self.assertEqual(clock.completed, 1)
        clock.backward_starts(60)
        clock.backward_ends(70)
        clock.optimizer_starts(70)
        clock.optimizer_ends(75)
        step = clock.forward_starts(90)
        self.assertEqual(step[1:3], [40, 75])
        self.assertEqual(step[3][0], [DATA, 40, 50], "the wait for the next batch is data")

    def test_gradient_accumulation_is_one_step(self):
        clock = StepClock()
        clock.forward_starts(0)
        clock.backward_starts(10)
        clock.backward_ends(20)
        self.assertIsNone(clock.forward_starts(25), "a second micro-batch, same step")
        clock.backward_starts(35)
        clock.backward_ends(45)
        clock.optimizer_starts(50)
        clock.optimizer_ends(60)
        step = clock.forward_starts(70)
        self.assertEqual([p[0] for p in step[3]],
                         [FORWARD, BACKWARD, DATA, FORWARD, BACKWARD, OPTIMIZER])
        self.assertEqual(step[3][2], [DATA, 20, 25])
        self.assertEqual(step[3][5], [OPTIMIZER, 45, 60], "clipping before the step is optimizer")

    def test_two_optimizers_end_one_step(self):
        clock = StepClock()
        clock.forward_starts(0)
        clock.backward_starts(10)
        clock.backward_ends(20)
        clock.optimizer_starts(20)
        clock.optimizer_ends(25)
        clock.optimizer_starts(26)
        clock.optimizer_ends(30)
        step = clock.forward_starts(40)
        self.assertEqual(step[2], 30)
        self.assertEqual(step[3][-1], [OPTIMIZER, 20, 30])
        self.assertEqual(clock.completed, 1)

    def test_the_wait_for_the_next_batch_is_the_next_steps(self):
        clock = StepClock()
        clock.forward_starts(0)
        self.assertEqual(clock.in_progress, 0)
        clock.backward_starts(10)
        clock.backward_ends(20)
        clock.optimizer_starts(20)
        clock.optimizer_ends(30)
        self.assertEqual(clock.in_progress, 1, "step 0 ended with its optimizer step")
        clock.forward_starts(40)
        self.assertEqual((clock.completed, clock.in_progress), (1, 1))

    def test_an_evaluation_between_steps_is_no_phase_of_the_next_step(self):
        clock = StepClock()
        clock.forward_starts(0)
        clock.backward_starts(10)
        clock.backward_ends(20)
        clock.optimizer_starts(20)
        clock.optimizer_ends(30)
        # A validation loop of two batches: each call, and the wait for its second batch.
        clock.evaluation_starts(32)
        clock.evaluation_ends(40)
        clock.evaluation_starts(43)
        clock.evaluation_ends(50)
        self.assertEqual(clock.completed, 0, "an evaluation closes no step")
        step = clock.forward_starts(55)
        self.assertEqual(step, [0, 0, 30, [[FORWARD, 0, 10], [BACKWARD, 10, 20],
                                           [OPTIMIZER, 20, 30]]])
        clock.backward_starts(60)
        clock.backward_ends(70)
        clock.optimizer_starts(70)
        clock.optimizer_ends(75)
        step = clock.forward_starts(80)
        self.assertEqual(step, [1, 30, 75, [[DATA, 30, 32], [OUTSIDE, 32, 50], [DATA, 50, 55],
                                            [FORWARD, 55, 60], [BACKWARD, 60, 70],
                                            [OPTIMIZER, 70, 75]]])

    def test_the_loss_runs_from_the_models_return_to_backward(self):
        clock = StepClock()
        clock.forward_starts(0)
        clock.forward_ends(10)
        clock.backward_starts(25)
        clock.backward_ends(40)
        clock.optimizer_starts(40)
        clock.optimizer_ends(45)
        step = clock.forward_starts(50)
        self.assertEqual(step[3], [[FORWARD, 0, 10], [LOSS, 10, 25], [BACKWARD, 25, 40],
                                   [OPTIMIZER, 40, 45]])

    def test_a_second_call_of_the_model_is_forward_again(self):
        # A triplet loss's anchor, positive and negative: the code between the calls is the loss.
        clock = StepClock()
        clock.forward_starts(0)
        clock.forward_ends(10)
        clock.forward_starts(12)
        clock.forward_ends(20)
        clock.backward_starts(30)
        clock.backward_ends(40)
        clock.optimizer_starts(40)
        clock.optimizer_ends(45)
        step = clock.forward_starts(50)
        self.assertEqual([p[0] for p in step[3]], [FORWARD, LOSS, FORWARD, LOSS, BACKWARD,
                                                   OPTIMIZER])
        self.assertEqual(step[3][3], [LOSS, 20, 30])

    def test_an_inner_return_outside_a_forward_opens_no_loss(self):
        clock = StepClock()
        clock.forward_ends(5)  # before the first step: set-up
        clock.forward_starts(10)
        clock.forward_ends(20)
        clock.forward_ends(22)  # a second root returning: the loss began at the first
        clock.backward_starts(30)
        clock.backward_ends(40)
        clock.optimizer_starts(40)
        clock.optimizer_ends(45)
        step = clock.forward_starts(50)
        self.assertEqual(step[3][:2], [[FORWARD, 10, 20], [LOSS, 20, 30]])

    def test_nothing_counts_before_the_first_forward(self):
        clock = StepClock()
        clock.backward_starts(1)
        clock.optimizer_starts(2)
        clock.optimizer_ends(3)
        self.assertFalse(clock.optimizer_stepped)
        self.assertIsNone(clock.forward_starts(5))


if __name__ == "__main__":
    unittest.main()
