"""The DataLoader feeding bench mode's blocks: its queue drained after each switch, and each timed
step's wait for its batch recorded in its block (loader_hook.py, loader_waits.py, blocks.py,
bench.py)."""

import json
import os
import tempfile
import types
import unittest

from advisor_probe import loader_hook, loader_waits
from advisor_probe.bench import Bench
from advisor_probe.loader_hook import LoaderHook


class FakeClock:
    def __init__(self):
        self.ns = 0

    def __call__(self):
        return self.ns


def fake_iterator_class(clock):
    """An iterator class whose batch `i` keeps the host waiting i ms (on `clock`)."""

    class Iterator:
        def __init__(self):
            self.served = 0

        def __next__(self):
            clock.ns += self.served * 1_000_000
            self.served += 1
            return self.served - 1

    return Iterator


def loader(workers, prefetch_factor):
    return types.SimpleNamespace(num_workers=workers, prefetch_factor=prefetch_factor)


class QueueDepthTest(unittest.TestCase):
    def test_each_worker_holds_its_prefetch_factor_of_batches(self):
        self.assertEqual(loader_waits.queue_depth(loader(6, 2)), 12)
        self.assertEqual(loader_waits.queue_depth(loader(3, None)), 6, "torch's default, 2")
        self.assertEqual(loader_waits.queue_depth(loader(0, 2)), 0, "made in the step")


class BlocksFedByALoaderTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.result = os.path.join(folder.name, "blocks.json")
        clock = FakeClock()
        original = loader_hook.now
        loader_hook.now = clock
        self.addCleanup(setattr, loader_hook, "now", original)
        self.iterator_class = fake_iterator_class(clock)

    def run_blocks(self, fed_by):
        """Runs the schedule of one candidate, 1 settle and 2 timed steps a block, its steps fed
        by the DataLoader `fed_by` (None: by no DataLoader), each batch fetched before the forward
        that closes the step before it, as the script's loop meets them."""
        bench = Bench({"result": self.result, "warmup": 1, "steps": 0,
                       "blocks": {"candidates": [{"id": "off",
                                                  "overrides": {"deterministic": False}}],
                                  "settle": 1, "steps": 2, "cycles": 1}}, lambda: None)
        bench.model_found([], False, lambda: 1)
        hook = LoaderHook([bench.loader_waits])
        hook.install(self.iterator_class)
        iterator = self.iterator_class()
        if fed_by is not None:
            hook.iterated(fed_by, iterator, 0)
        next(iterator)  # step 0's batch
        index, done = 0, False
        while not done:
            next(iterator)  # the next step's batch, before its forward closes this step
            done = bench.step_closed([index, 0, 100_000_000, []])
            index += 1
        with open(self.result) as result:
            return index, json.load(result)

    def test_the_queue_is_drained_after_each_switch_and_each_timed_steps_wait_recorded(self):
        steps, result = self.run_blocks(fed_by=loader(2, 2))
        # Step 0 finds the model, step 1 warms up; each block then leaves out 1 + 2 x 2 steps.
        self.assertEqual(steps, 2 + 2 * (1 + 4 + 2))
        self.assertEqual(result["loader_queue"], 4)
        self.assertEqual(result["settle"], 5)
        self.assertEqual([len(b["settle_ms"]) for b in result["blocks"]], [5, 5])
        # Step i waited i ms for its batch: the first block's timed steps are 7 and 8.
        self.assertEqual([b["loader_wait_ms"] for b in result["blocks"]], [[7.0, 8.0],
                                                                          [14.0, 15.0]])

    def test_a_loader_without_workers_queues_nothing_to_drain(self):
        steps, result = self.run_blocks(fed_by=loader(0, 2))
        self.assertEqual(steps, 2 + 2 * (1 + 2))
        self.assertEqual((result["loader_queue"], result["settle"]), (0, 1))
        self.assertEqual([b["loader_wait_ms"] for b in result["blocks"]], [[3.0, 4.0], [6.0, 7.0]])

    def test_steps_no_loader_feeds_record_no_wait(self):
        steps, result = self.run_blocks(fed_by=None)
        self.assertEqual(steps, 2 + 2 * (1 + 2))
        self.assertEqual(result["loader_queue"], 0)
        self.assertTrue(all("loader_wait_ms" not in b for b in result["blocks"]))


if __name__ == "__main__":
    unittest.main()
