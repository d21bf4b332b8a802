"""Bench mode under a launcher: every rank times the same steps, rank 0 writes the job's one
worker result with each step as long as the slowest rank's."""

import json
import os
import tempfile
import unittest
from unittest import mock

from advisor_probe.bench import Bench, merge_ranks


def step(index, ms):
    return [index, 0, int(ms * 1e6), []]


class BenchRanksTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.result = os.path.join(folder.name, "r0-a.json")

    def bench(self, rank, world_size=2, **config):
        config = dict({"result": self.result, "warmup": 0, "steps": 2}, **config)
        with mock.patch.dict(os.environ, {"RANK": str(rank), "WORLD_SIZE": str(world_size)}):
            return Bench(config, lambda: None)

    def run_steps(self, bench, milliseconds):
        closed = [bench.step_closed(step(index + 1, ms)) for index, ms in enumerate(milliseconds)]
        return closed[-1]

    def test_rank_0_writes_the_slowest_rank_per_step(self):
        other = self.bench(rank=1)
        self.assertTrue(self.run_steps(other, [30.0, 10.0]))
        self.assertFalse(os.path.exists(self.result), "only rank 0 writes the worker result")
        own = self.bench(rank=0)
        self.assertTrue(self.run_steps(own, [20.0, 20.0]))
        with open(self.result) as result:
            written = json.load(result)
        self.assertEqual(written["step_ms"], [30.0, 20.0])
        self.assertEqual(os.listdir(os.path.dirname(self.result)), ["r0-a.json"],
                         "the other ranks' timings are read and removed")

    def test_losses_and_skips_are_rank_0s_alone(self):
        other = self.bench(rank=1, steps=0, loss_steps=1)
        other.backward(__import__("torch").tensor(2.0))
        self.assertTrue(other.step_closed(step(1, 5.0)))
        other.skip("nothing to apply")
        self.assertEqual(os.listdir(os.path.dirname(self.result)), [])
        own = self.bench(rank=0, steps=0, loss_steps=1)
        own.backward(__import__("torch").tensor(1.5))
        self.assertTrue(own.step_closed(step(1, 5.0)))
        with open(self.result) as result:
            self.assertEqual(json.load(result), {"losses": [1.5]})

    def test_merge_sums_the_ranks_batches_and_keeps_the_highest_peak(self):
        own = {"step_ms": [10.0, 12.0], "samples_per_step": 64, "peak_memory_mb": 900.0}
        merged = merge_ranks(own, [{"step_ms": [11.0, 9.0], "samples_per_step": 64,
                                    "peak_memory_mb": 950.0},
                                   {"step_ms": [8.0, 13.0], "samples_per_step": 64,
                                    "peak_memory_mb": None}])
        self.assertEqual(merged["step_ms"], [11.0, 13.0])
        self.assertEqual(merged["samples_per_step"], 192)
        self.assertEqual(merged["peak_memory_mb"], 950.0)

    def test_a_blocks_lead_is_the_least_of_the_ranks_that_timed_one(self):
        def block(lead=None):
            timed = {"step_ms": [10.0], "peak_memory_mb": None}
            if lead is not None:
                timed["host_lead_ms"] = lead
            return timed

        own = {"blocks": [block(30.0), block(), block()], "samples_per_step": 8}
        merged = merge_ranks(own, [{"blocks": [block(12.0), block(5.0), block()],
                                    "samples_per_step": 8}])
        self.assertEqual([b.get("host_lead_ms") for b in merged["blocks"]], [12.0, 5.0, None])

    def test_an_epochs_start_waits_as_long_as_the_slowest_ranks_first_batch(self):
        own = {"blocks": [{"step_ms": [10.0]}], "samples_per_step": 8,
               "epoch_start_waits_ms": [300.0, 120.0]}
        merged = merge_ranks(own, [{"blocks": [{"step_ms": [11.0]}], "samples_per_step": 8,
                                    "epoch_start_waits_ms": [250.0, 410.0]}])
        self.assertEqual(merged["epoch_start_waits_ms"], [300.0, 410.0])
        self.assertEqual(own["epoch_start_waits_ms"], [300.0, 120.0], "rank 0's own is untouched")
        none = merge_ranks({"blocks": [], "samples_per_step": 8},
                           [{"blocks": [], "samples_per_step": 8}])
        self.assertNotIn("epoch_start_waits_ms", none, "no epoch began: no field")


if __name__ == "__main__":
    unittest.main()
