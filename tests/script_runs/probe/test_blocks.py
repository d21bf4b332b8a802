"""Bench mode's blocks: the baseline and the candidates alternate in blocks of steps inside the
one running script, their knobs switched between steps and the script's own settings put back."""

import json
import os
import tempfile
import unittest

import torch

from advisor_probe.bench import Bench
from advisor_probe.blocks import BlockSchedule, Switches


def step(index, ms):
    return [index, 0, int(ms * 1e6), []]


def schedule_config(**overrides):
    config = {"candidates": [{"id": "deterministic-off", "overrides": {"deterministic": False}},
                             {"id": "intra-op-threads", "overrides": {"intra_op_threads": 1}}],
              "settle": 1, "steps": 2, "cycles": 2}
    config.update(overrides)
    return config


class BlockScheduleTest(unittest.TestCase):
    def test_each_candidate_gets_a_pair_per_cycle_in_alternating_order(self):
        schedule = BlockSchedule(schedule_config())
        order = [(b.candidate, b.side, b.cycle) for b in schedule.blocks]
        self.assertEqual(order, [
            ("deterministic-off", "baseline", 0), ("deterministic-off", "candidate", 0),
            ("intra-op-threads", "candidate", 0), ("intra-op-threads", "baseline", 0),
            ("deterministic-off", "candidate", 1), ("deterministic-off", "baseline", 1),
            ("intra-op-threads", "baseline", 1), ("intra-op-threads", "candidate", 1)])
        self.assertEqual(len(schedule), 8 * 3)

    def test_the_steps_after_a_switch_are_not_timed(self):
        schedule = BlockSchedule(schedule_config())
        timed = [schedule.at(position)[1] for position in range(6)]
        self.assertEqual(timed, [False, True, True, False, True, True])
        self.assertIs(schedule.at(3)[0], schedule.blocks[1])
        self.assertEqual(schedule.at(len(schedule)), (None, False))


class SwitchesTest(unittest.TestCase):
    def test_a_candidate_is_switched_on_and_the_scripts_settings_put_back(self):
        model = torch.nn.Linear(2, 2)
        threads = torch.get_num_threads()
        switches = Switches([model], cuda=False, physical_cores=lambda: 1)
        torch.use_deterministic_algorithms(True)
        try:
            switches.set({"deterministic": False, "intra_op_threads": 1,
                          "cudnn_benchmark": True})
            self.assertFalse(torch.are_deterministic_algorithms_enabled())
            self.assertEqual(torch.get_num_threads(), 1)
            self.assertTrue(torch.backends.cudnn.benchmark)
            switches.set({})
            self.assertTrue(torch.are_deterministic_algorithms_enabled())
            self.assertEqual(torch.get_num_threads(), threads)
            self.assertFalse(torch.backends.cudnn.benchmark)
        finally:
            torch.use_deterministic_algorithms(False)
            torch.set_num_threads(threads)

    def test_one_sdpa_backend_is_left_and_the_scripts_choice_put_back(self):
        # The flags are global switches that a CPU torch has too (math and flash since 1.13).
        cuda = torch.backends.cuda
        switches = Switches([torch.nn.Linear(2, 2)], cuda=False, physical_cores=lambda: 1)
        switches.set({"sdpa_backend": "math"})
        try:
            self.assertTrue(cuda.math_sdp_enabled())
            self.assertFalse(cuda.flash_sdp_enabled())
        finally:
            switches.set({})
        self.assertTrue(cuda.math_sdp_enabled())
        self.assertTrue(cuda.flash_sdp_enabled())


class BenchBlocksTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.result = os.path.join(folder.name, "blocks.json")
        self.threads = torch.get_num_threads()
        self.addCleanup(torch.set_num_threads, self.threads)

    def bench(self, **blocks):
        bench = Bench({"result": self.result, "warmup": 1, "steps": 0,
                       "blocks": schedule_config(**blocks)}, lambda: None)
        bench.model_found([torch.nn.Linear(2, 2)], False, lambda: 1)
        return bench

    def written(self):
        with open(self.result) as result:
            return json.load(result)

    def test_each_step_is_timed_under_its_blocks_knobs(self):
        bench = self.bench(candidates=[{"id": "one-thread",
                                        "overrides": {"intra_op_threads": 1}}], cycles=2)
        bench.backward(torch.tensor(0.5))
        # Step 0 finds the model, step 1 warms up; the schedule begins with step 2. Each step
        # here takes as long as the thread count it ran with, so the blocks show what was set.
        index, done, threads_seen = 0, False, []
        while not done:
            threads = torch.get_num_threads()
            threads_seen.append(threads)
            done = bench.step_closed(step(index, 10.0 * threads))
            index += 1
        self.assertEqual(index, 2 + 4 * 3, "warm-up, then 4 blocks of 1 settling + 2 timed steps")
        result = self.written()
        self.assertTrue(result["complete"])
        self.assertEqual(result["loss"], 0.5)
        by_side = {(b["side"], b["cycle"]): b["step_ms"] for b in result["blocks"]}
        one = 10.0
        every = 10.0 * self.threads
        self.assertEqual(by_side, {("baseline", 0): [every, every],
                                   ("candidate", 0): [one, one],
                                   ("candidate", 1): [one, one],
                                   ("baseline", 1): [every, every]})
        self.assertEqual(torch.get_num_threads(), self.threads, "the script's own count is back")

    def test_a_script_that_ends_first_leaves_what_it_timed(self):
        bench = self.bench()
        for index in range(9):  # the warm-up, the first pair of blocks, the next one's settling
            self.assertFalse(bench.step_closed(step(index, 5.0)))
        self.assertTrue(bench.script_ended())
        result = self.written()
        self.assertFalse(result["complete"])
        self.assertEqual([(b["candidate"], b["side"], len(b["step_ms"])) for b in result["blocks"]],
                         [("deterministic-off", "baseline", 2),
                          ("deterministic-off", "candidate", 2)])

    def test_a_script_that_ends_before_the_schedule_begins_leaves_nothing(self):
        bench = self.bench()
        bench.step_closed(step(0, 5.0))
        self.assertFalse(bench.script_ended())
        self.assertFalse(os.path.exists(self.result))


if __name__ == "__main__":
    unittest.main()
