"""The DataLoader feeding bench mode's blocks: its queue drained after a switch into a side that may
be faster, and each timed step's wait for its batch, and whether that batch began an epoch,
recorded in its block (loader_hook.py, loader_waits.py, blocks.py, bench.py)."""

import json
import os
import tempfile
import unittest

from advisor_probe import loader_hook, loader_waits
from advisor_probe.bench import Bench
from advisor_probe.loader_hook import LoaderHook
from fake_events import FakeEvent


class FakeClock:
    def __init__(self):
        self.ns = 0

    def __call__(self):
        return self.ns


def fake_iterator_class(clock, epoch):
    """An iterator class whose batch `i` (counted over every iterator) keeps the host waiting
    i ms (on `clock`), `epoch` batches an iterator."""
    served = [0]

    class Iterator:
        def __init__(self):
            self.left = epoch

        def __next__(self):
            if self.left == 0:
                raise StopIteration
            self.left -= 1
            clock.ns += served[0] * 1_000_000
            served[0] += 1
            return served[0] - 1

    return Iterator


class FakeLoader:
    def __init__(self, workers, prefetch_factor, batches=None):
        self.num_workers = workers
        self.prefetch_factor = prefetch_factor
        self._batches = batches

    def __len__(self):
        if self._batches is None:
            raise TypeError("a sampler without a length")
        return self._batches


def loader(workers, prefetch_factor, batches=None):
    return FakeLoader(workers, prefetch_factor, batches)


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
        self.clock = FakeClock()
        original = loader_hook.now
        loader_hook.now = self.clock
        self.addCleanup(setattr, loader_hook, "now", original)

    def run_blocks(self, fed_by, epoch=10**9, cuda=False):
        """Runs the schedule of one candidate, 1 settle and 2 timed steps a block, every step
        100 ms, its steps fed by the DataLoader `fed_by` (None: by no DataLoader) in epochs of
        `epoch` batches, each batch fetched before the forward that closes the step before it, as
        the script's loop meets them."""
        bench = Bench({"result": self.result, "warmup": 1, "steps": 0,
                       "blocks": {"candidates": [{"id": "off",
                                                  "overrides": {"deterministic": False}}],
                                  "settle": 1, "steps": 2, "cycles": 1}}, lambda: None)
        device_ms = [0.0]
        if cuda:  # CUDA events' stand-ins, at the end of each measured step, 100 ms apart
            bench._record_event = lambda: FakeEvent(device_ms[0])
        bench.model_found([], cuda, lambda: 1)
        iterator_class = fake_iterator_class(self.clock, epoch)
        hook = LoaderHook([bench.loader_waits])
        hook.install(iterator_class)

        def fresh():
            iterator = iterator_class()
            if fed_by is not None:
                hook.iterated(fed_by, iterator, 0)
            return iterator

        iterator = fresh()

        def next_batch():
            nonlocal iterator
            try:
                return next(iterator)
            except StopIteration:  # the loop's next epoch
                iterator = fresh()
                return next(iterator)

        next_batch()  # step 0's batch
        index, done = 0, False
        while not done:
            next_batch()  # the next step's batch, before its forward closes this step
            end_ns = (index + 1) * 100_000_000
            if cuda and index >= bench.first_measured - 1:
                device_ms[0] += 100.0
                bench.step_ends(end_ns)
            done = bench.step_closed([index, end_ns - 100_000_000, end_ns, []])
            index += 1
        with open(self.result) as result:
            return index, json.load(result)

    def test_a_side_not_yet_run_drains_the_queue_and_each_timed_steps_wait_is_recorded(self):
        steps, result = self.run_blocks(fed_by=loader(2, 2))
        # Step 0 finds the model, step 1 warms up. The baseline's block after the warm-up's
        # baseline steps leaves out its 1 settle step; the candidate's, whose pace nothing
        # measured yet, 1 + 2 x 2.
        self.assertEqual(steps, 2 + (1 + 2) + (1 + 4 + 2))
        self.assertEqual((result["loader_queue"], result["settle"]), (4, 1))
        self.assertEqual([len(b["settle_ms"]) for b in result["blocks"]], [1, 5])
        # Step i waited i ms for its batch: the first block's timed steps are 3 and 4.
        self.assertEqual([b["loader_wait_ms"] for b in result["blocks"]], [[3.0, 4.0],
                                                                          [10.0, 11.0]])
        self.assertEqual([b["epoch_starts"] for b in result["blocks"]], [[], []])
        self.assertNotIn("epoch_batches", result, "the loader has no length")

    def test_the_timed_steps_that_began_an_epoch_are_recorded(self):
        steps, result = self.run_blocks(fed_by=loader(2, 2, batches=4), epoch=4)
        self.assertEqual(result["epoch_batches"], 4)
        # Batches 0-3 are the first epoch, 4-7 the second, 8-11 the third: step i's batch is i.
        self.assertEqual([b["loader_wait_ms"] for b in result["blocks"]], [[3.0, 4.0],
                                                                          [10.0, 11.0]])
        self.assertEqual([b["epoch_starts"] for b in result["blocks"]], [[1], []])
        self.assertEqual(result["epoch_start_waits_ms"], [4.0, 8.0],
                         "every start after the warm-up, the candidate's in a settle step")
        self.assertTrue(all("host_lead_ms" not in b for b in result["blocks"]),
                        "the host timed the steps")

    def test_on_a_gpu_each_block_ends_with_its_hosts_lead(self):
        _, result = self.run_blocks(fed_by=loader(2, 2, batches=3), epoch=3, cuda=True)
        # Epochs begin at batches 3, 6, 9 and 12: the baseline's block ends at step 4, whose next
        # batch, 5, began none; the candidate's at step 11, whose next, 12, began one.
        self.assertEqual(result["epoch_start_waits_ms"], [3.0, 6.0, 9.0])
        self.assertGreaterEqual(result["blocks"][0]["host_lead_ms"], 0.0)
        self.assertNotIn("host_lead_ms", result["blocks"][1],
                         "the wait for an epoch's first batch used the lead up")
        self.assertEqual(result["blocks"][0]["step_ms"], [100.0, 100.0], "the device's times")

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
