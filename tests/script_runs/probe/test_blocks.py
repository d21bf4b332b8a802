"""Bench mode's blocks: the baseline and the candidates alternate in blocks of steps inside the
one running script, their knobs switched between steps and the script's own settings put back."""

import json
import math
import os
import tempfile
import unittest

import torch

from advisor_probe import knobs
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

    def test_the_steps_after_a_switch_are_not_timed(self):
        schedule = BlockSchedule(schedule_config())
        timed = [schedule.at(position)[1] for position in range(6)]
        self.assertEqual(timed, [False, True, True, False, True, True])
        self.assertIs(schedule.at(3)[0], schedule.blocks[1])
        self.assertEqual(schedule.at(8 * 3), (None, False), "8 blocks of 1 + 2 steps")


def walk(schedule, pace_ms):
    """Runs the schedule to its end, each step of a block as long as pace_ms(block) says: the
    settle steps each block had."""
    position = 0
    while True:
        block, timed = schedule.at(position)
        if block is None:
            return [len(b.settle_ms) for b in schedule.blocks]
        (block.step_ms if timed else block.settle_ms).append(pace_ms(block))
        position += 1


class DrainTest(unittest.TestCase):
    """The loader's queue is drained only after a switch into a side that may be faster."""

    def schedule(self, queue=4):
        schedule = BlockSchedule(schedule_config(
            candidates=[{"id": "off", "overrides": {"deterministic": False}}], cycles=3))
        schedule.drain(queue)
        schedule.warmed_up(100.0)  # the baseline's warm-up: its first pace
        return schedule

    def order(self, schedule):
        return [(b.side, b.cycle) for b in schedule.blocks]

    def test_a_faster_side_drains_and_a_slower_one_only_settles(self):
        schedule = self.schedule()
        settles = walk(schedule, lambda b: 100.0 if b.side == "baseline" else 20.0)
        self.assertEqual(self.order(schedule), [("baseline", 0), ("candidate", 0),
                                                ("candidate", 1), ("baseline", 1),
                                                ("baseline", 2), ("candidate", 2)])
        # The baseline after its warm-up settles; the candidate, never run, drains; after itself
        # and after the faster candidate no drain; after the baseline's slower steps, a drain.
        self.assertEqual(settles, [1, 5, 1, 1, 1, 5])

    def test_sides_of_one_speed_do_not_drain_once_both_are_measured(self):
        schedule = self.schedule()
        settles = walk(schedule, lambda b: 100.0 if b.side == "baseline" else 95.0)
        self.assertEqual(settles, [1, 5, 1, 1, 1, 1], "95 ms is within DRAIN_ABOVE of 100")

    def test_a_side_is_judged_by_the_median_of_its_steps_so_far(self):
        schedule = self.schedule()
        # The candidate's first block reads fast (the queue's batches), its second, 8 steps long
        # after the first's pace (LONGEST_BLOCK), slow: the median of its 10 steps, 110 ms, is
        # slower than the baseline's 100, where their mean, 90 ms, would have drained.
        settles = walk(schedule, lambda b: 100.0 if b.side == "baseline" else
                       10.0 if b.cycle == 0 else 110.0)
        self.assertEqual(settles, [1, 5, 1, 1, 1, 1])

    def test_a_baseline_without_warm_up_drains_its_first_block(self):
        schedule = BlockSchedule(schedule_config(
            candidates=[{"id": "off", "overrides": {"deterministic": False}}], cycles=1))
        schedule.drain(4)
        self.assertEqual(walk(schedule, lambda b: 100.0), [5, 5], "no pace of either side")

    def test_a_launchers_ranks_drain_after_every_switch(self):
        schedule = BlockSchedule(schedule_config(
            candidates=[{"id": "off", "overrides": {"deterministic": False}}], cycles=3))
        schedule.drain(4, every_switch=True)
        schedule.warmed_up(100.0)
        settles = walk(schedule, lambda b: 100.0 if b.side == "baseline" else 20.0)
        self.assertEqual(settles, [5] * 6, "the same blocks on every rank, whatever each timed")

    def test_without_a_queue_every_block_only_settles(self):
        schedule = self.schedule(queue=0)
        self.assertEqual(walk(schedule, lambda b: 100.0 if b.side == "baseline" else 20.0),
                         [1] * 6)


class BlockLengthTest(unittest.TestCase):
    """A candidate side faster than the baseline times as many more steps as make its block about
    as long as a baseline block, up to LONGEST_BLOCK times the design's."""

    def timed(self, candidate_ms, every_switch=False):
        schedule = BlockSchedule(schedule_config(
            candidates=[{"id": "bf16", "overrides": {"autocast_dtype": "bfloat16"}}], cycles=3,
            steps=5))
        schedule.drain(0, every_switch=every_switch)
        schedule.warmed_up(170.0)
        walk(schedule, lambda b: 170.0 if b.side == "baseline" else candidate_ms)
        return [len(b.step_ms) for b in schedule.blocks]

    def test_a_faster_side_times_a_baseline_blocks_length_of_steps(self):
        # Its first block, before its pace is known, times the design's 5; then 5 x 170 / 57.
        self.assertEqual(self.timed(57.0), [5, 5, 15, 5, 5, 15])

    def test_a_much_faster_side_stops_at_the_longest_block(self):
        self.assertEqual(self.timed(10.0), [5, 5, 20, 5, 5, 20])

    def test_a_slower_side_and_a_launchers_ranks_keep_the_designs_steps(self):
        self.assertEqual(self.timed(200.0), [5] * 6)
        self.assertEqual(self.timed(57.0, every_switch=True), [5] * 6)


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


class Product(torch.nn.Module):
    """One matrix product, after dropout where it has some: inductor compiles it into calls of
    what it has (dropout falling back to eager's where its random numbers must be eager's), with
    no C++ kernel to build, so that a compile costs seconds on a CPU."""

    def __init__(self, dropout=0.0):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(16, 4))
        self.dropout = dropout

    def forward(self, x):
        if self.dropout:
            x = torch.nn.functional.dropout(x, self.dropout)
        return x @ self.weight


def forget_compiled_code():
    """Dynamo's cache entries are kept on the forward's code, which every Product shares, and an
    entry one test compiled would serve the next test's wrapper of the same backend: each test
    compiles from nothing."""
    torch._dynamo.reset()


def compiled_frames():
    """The frames dynamo compiled in this process so far: a recompile is one more."""
    from torch._dynamo.utils import counters
    return counters["frames"]["ok"]


def script_forward(model):
    """A forward of the script's own as an instance attribute, as a script wraps its model's."""
    def forward(x):
        return type(model).forward(model, x)
    return forward


@unittest.skipUnless(hasattr(torch, "compile"), "this torch has no torch.compile")
class CompileSwitchTest(unittest.TestCase):
    def setUp(self):
        forget_compiled_code()

    def test_the_compiled_forward_is_switched_in_and_the_scripts_own_put_back(self):
        wrapped, plain = Product(), Product()
        own = wrapped.forward = script_forward(wrapped)
        switches = Switches([wrapped, plain], cuda=False, physical_cores=lambda: 1)
        switches.set({"compile": True})
        self.assertIsNot(wrapped.forward, own)
        self.assertIn("forward", vars(plain), "a compiled forward on each root")
        compiled = plain.forward
        switches.set({})
        self.assertIs(vars(wrapped)["forward"], own, "the script's own forward stays")
        self.assertNotIn("forward", vars(plain), "the class's forward is called again")
        switches.set({"compile": True})
        self.assertIs(plain.forward, compiled, "made once, kept for the run")
        switches.reset()
        self.assertNotIn("forward", vars(plain))

    def test_each_mode_switches_its_own_compiled_forwards_regional_the_blocks(self):
        model = torch.nn.Sequential(torch.nn.Linear(16, 16),
                                    torch.nn.ModuleList([Product(), Product()]))
        switches = Switches([model], cuda=False, physical_cores=lambda: 1)
        switches.set({"compile_mode": "regional"})
        self.assertNotIn("forward", vars(model), "the root stays eager")
        regional = [vars(block)["forward"] for block in model[1]]
        switches.set({"compile": True})
        self.assertNotIn("forward", vars(model[1][0]), "plain compile's is the root's alone")
        plain = vars(model)["forward"]
        switches.set({})
        self.assertFalse(any("forward" in vars(m) for m in model.modules()), "all put back")
        switches.set({"compile_mode": "regional"})
        self.assertEqual([vars(block)["forward"] for block in model[1]], regional, "kept")
        switches.set({"compile": True})
        self.assertIs(vars(model)["forward"], plain)
        switches.reset()

    def test_a_mode_without_its_blocks_raises_for_the_checks_processes_to_say_why(self):
        switches = Switches([Product()], cuda=False, physical_cores=lambda: 1)
        with self.assertRaisesRegex(RuntimeError, "no ModuleList or Sequential"):
            switches.set({"compile_mode": "regional"})

    def test_later_switches_do_not_recompile(self):
        model = Product()
        x = torch.randn(8, 16)
        switches = Switches([model], cuda=False, physical_cores=lambda: 1)
        eager = model(x).detach()
        switches.set({"compile": True})
        model(x).sum().backward()  # the first compiled step compiles
        frames = compiled_frames()
        self.assertGreater(frames, 0)
        for _ in range(3):
            switches.set({})
            model(x).sum().backward()
            switches.set({"compile": True})
            model(x).sum().backward()
            torch.testing.assert_close(model(x).detach(), eager)
        self.assertEqual(compiled_frames(), frames, "dynamo compiled nothing more")

    def test_the_checks_compile_is_its_own_and_draws_eagers_random_numbers(self):
        # The numerics check compiles first (its forward with inductor's fallback_random), the
        # first compiled block after it: dynamo must compile that one anew rather than serve it
        # the check's entry for the same code, whose random ops are eager's.
        model = Product(dropout=0.5)
        x = torch.randn(8, 16)
        switches = Switches([model], cuda=False, physical_cores=lambda: 1)
        torch.manual_seed(1)
        eager = model(x).detach()
        switches.set(knobs.as_checked({"compile": True}))
        torch.manual_seed(1)
        self.assertTrue(torch.equal(model(x).detach(), eager), "the same dropout mask")
        frames = compiled_frames()
        switches.set({"compile": True})
        # Compiled here with fallback_random too, so that the test builds no C++ kernel: what is
        # asserted is that this wrapper compiles its own entry.
        import torch._inductor.config as inductor_config
        with inductor_config.patch(fallback_random=True):
            model(x)
        self.assertEqual(compiled_frames(), frames + 1, "the timed forward compiled its own")
        switches.set(knobs.as_checked({"compile": True}))
        torch.manual_seed(1)
        self.assertTrue(torch.equal(model(x).detach(), eager))
        self.assertEqual(compiled_frames(), frames + 1, "and the check's entry served it again")


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
        # With more than one thread the candidate's side is the faster, and its second block
        # times as many steps as last as long as a baseline block (blocks.LONGEST_BLOCK).
        longer = min(4 * 2, math.ceil(2 * self.threads))
        self.assertEqual(index, 2 + 4 * 3 + (longer - 2),
                         "warm-up, then 4 blocks of 1 settling + 2 timed steps, one longer")
        result = self.written()
        self.assertTrue(result["complete"])
        self.assertEqual(result["loss"], 0.5)
        by_side = {(b["side"], b["cycle"]): b["step_ms"] for b in result["blocks"]}
        one = 10.0
        every = 10.0 * self.threads
        self.assertEqual(by_side, {("baseline", 0): [every, every],
                                   ("candidate", 0): [one, one],
                                   ("candidate", 1): [one] * longer,
                                   ("baseline", 1): [every, every]})
        self.assertEqual(torch.get_num_threads(), self.threads, "the script's own count is back")

    @unittest.skipUnless(hasattr(torch, "compile"), "this torch has no torch.compile")
    def test_a_compile_falls_in_its_first_blocks_settling_steps(self):
        forget_compiled_code()
        model = Product()
        bench = Bench({"result": self.result, "warmup": 1, "steps": 0,
                       "blocks": schedule_config(
                           candidates=[{"id": "compile", "overrides": {"compile": True}}],
                           settle=2, steps=2, cycles=3)}, lambda: None)
        bench.model_found([model], False, lambda: 1)
        x = torch.randn(8, 16)
        # Each step takes 1000 ms where dynamo compiled in it, 1 ms otherwise: the timed steps
        # show whether a compile was timed.
        index, done = 0, False
        while not done:
            frames = compiled_frames()
            model(x).sum().backward()
            done = bench.step_closed(step(index, 1000.0 if compiled_frames() > frames else 1.0))
            index += 1
        blocks = self.written()["blocks"]
        self.assertEqual([b["step_ms"] for b in blocks], [[1.0, 1.0]] * 6, "none timed")
        first = next(b for b in blocks if b["side"] == "candidate")
        self.assertEqual(first["settle_ms"], [1000.0, 1.0], "the first compiled block compiled")
        self.assertEqual([b["settle_ms"] for b in blocks if b is not first], [[1.0, 1.0]] * 5)
        self.assertNotIn("forward", vars(model), "the script's own forward at the end")

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
