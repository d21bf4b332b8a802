"""Bench mode's numerics check inside the running script: the baseline's and each candidate's
outputs on the same call from the same weights, compared within the tolerance of each dtype, and
the script's training left as it was."""

import contextlib
import dataclasses
import json
import os
import tempfile
import unittest

import torch

from advisor_probe.bench import Bench
from advisor_probe.blocks import Switches
from advisor_probe.call_inputs import named_tensors
from advisor_probe.numerics_check import check_in_run, compare, within

TOLERANCES = {"float32": 1e-3, "float64": 1e-10, "float16": 5e-3, "bfloat16": 4e-2}


@dataclasses.dataclass
class Output:  # a ModelOutput is a dataclass and an ordered dict
    loss: torch.Tensor
    hidden: tuple


def named(output):
    return list(named_tensors(output))


class CompareTest(unittest.TestCase):
    def outputs(self, logits_shift=0.0, loss=2.0):
        logits = torch.linspace(-4, 4, 12).reshape(3, 4)
        return named(({"out": Output(torch.tensor(loss), (logits + logits_shift,
                                                         torch.arange(3)))},))

    def test_nested_outputs_within_tolerance_name_the_closest_tensor(self):
        result = compare(self.outputs(), self.outputs(logits_shift=1e-4), TOLERANCES)
        self.assertTrue(within(result), result)
        self.assertEqual(result["compared"], 3, "the loss, the logits, the integer ids")
        self.assertAlmostEqual(result["max_rel_diff"], 1e-4 / 4, delta=1e-6)
        self.assertEqual(result["tolerance"], 1e-3)
        self.assertIn("output[0].out.hidden[0]", result["detail"])

    def test_a_difference_beyond_the_dtypes_tolerance_is_refused(self):
        result = compare(self.outputs(), self.outputs(loss=2.1), TOLERANCES)
        self.assertFalse(within(result))
        self.assertAlmostEqual(result["max_rel_diff"], 0.1 / 2.1, places=5)
        self.assertIn("output[0].out.loss", result["detail"])

    def test_integers_must_match_exactly(self):
        result = compare(named(torch.arange(3)), named(torch.tensor([0, 1, 3])), TOLERANCES)
        self.assertFalse(within(result))
        self.assertEqual(result["tolerance"], 0.0)

    def test_a_non_finite_output_fails(self):
        nan = torch.tensor([1.0, float("nan")])
        result = compare(named([nan]), named([nan]), TOLERANCES)
        self.assertIsNone(result["max_rel_diff"])
        self.assertFalse(within(result))
        self.assertIn("output[0] is not finite", result["detail"])
        extremes = compare(named(torch.tensor([3e38])), named(torch.tensor([-3e38])), TOLERANCES)
        self.assertIsNone(extremes["max_rel_diff"], "a difference float32 cannot hold")

    def test_outputs_of_another_structure_fail(self):
        result = compare(named((torch.ones(2),)), named((torch.ones(3),)), TOLERANCES)
        self.assertFalse(within(result))


class PlantedKnob(torch.nn.Module):
    """Dropout and BatchNorm, whose output moves by 10 % where deterministic algorithms are off."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.norm = torch.nn.BatchNorm1d(8)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x, scale=1.0):
        y = self.drop(self.norm(self.linear(x))) * scale
        return {"y": y if torch.are_deterministic_algorithms_enabled() else y * 1.1}


class CheckInRunTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.model = PlantedKnob()
        self.switches = Switches([self.model], cuda=False, physical_cores=lambda: 1)
        self.threads = torch.get_num_threads()
        torch.use_deterministic_algorithms(True)
        self.addCleanup(torch.use_deterministic_algorithms, False)
        self.addCleanup(torch.set_num_threads, self.threads)

    def test_candidates_are_compared_from_the_same_state_and_the_state_is_left_alone(self):
        weights = {k: v.clone() for k, v in self.model.state_dict().items()}
        inputs = torch.randn(4, 8)
        rng = torch.get_rng_state()
        results = check_in_run(self.model, (inputs,), {"scale": 2.0}, self.switches,
                               {"off": ({"deterministic": False}, TOLERANCES),
                                "one-thread": ({"intra_op_threads": 1}, TOLERANCES)}, None)
        self.assertAlmostEqual(results["off"]["max_rel_diff"], 0.1 / 1.1, places=5)
        self.assertFalse(within(results["off"]))
        self.assertLess(results["one-thread"]["max_rel_diff"], 1e-6,
                        "the same dropout masks on both sides (another mask moves it by O(1))")
        self.assertTrue(torch.equal(torch.get_rng_state(), rng), "the script's RNG as it was")
        for key, value in self.model.state_dict().items():
            self.assertTrue(torch.equal(value, weights[key]), key + ": running stats put back")
        self.assertTrue(all(p.grad is None for p in self.model.parameters()))
        self.assertTrue(torch.are_deterministic_algorithms_enabled(), "the script's setting")
        self.assertEqual(torch.get_num_threads(), self.threads)

    def test_a_forward_that_raises_is_an_error_of_the_check(self):
        results = check_in_run(self.model, (torch.randn(4, 3),), {}, self.switches,
                               {"off": ({"deterministic": False}, TOLERANCES)}, None)
        self.assertIn("raised", results["off"]["error"])


    def test_an_attention_switch_is_checked_on_sdpas_math_backend(self):
        # The math backend draws attention dropout's mask as eager attention does; a fused
        # kernel draws its own, which no tolerance admits (a GPT-2's logits, 19 %).
        class Recording:
            def __init__(self):
                self.seen = []

            def set(self, overrides):
                self.seen.append(dict(overrides))

            def autocast(self):
                return contextlib.nullcontext()

        switches = Recording()
        check_in_run(self.model, (torch.randn(4, 8),), {}, switches,
                     {"sdpa": ({"attn_implementation": "sdpa"}, TOLERANCES),
                      "flash": ({"attn_implementation": "sdpa", "sdpa_backend": "flash"},
                                TOLERANCES)}, None)
        candidates = [o for o in switches.seen if o]
        self.assertEqual(candidates, [{"attn_implementation": "sdpa", "sdpa_backend": "math"},
                                      {"attn_implementation": "sdpa", "sdpa_backend": "flash"}])

    def test_a_sharded_model_is_left_to_processes(self):
        class FullyShardedDataParallel(torch.nn.Module):  # its forward expects a backward
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                raise AssertionError("not called")

        results = check_in_run(FullyShardedDataParallel(self.model), (torch.randn(4, 8),), {},
                               self.switches, {"off": ({"deterministic": False}, TOLERANCES)},
                               None)
        self.assertIn("FullyShardedDataParallel", results["off"]["error"])


class BenchCheckTest(unittest.TestCase):
    def test_the_check_runs_before_the_blocks_and_a_refused_candidate_gets_none(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        path = os.path.join(folder.name, "blocks.json")
        torch.use_deterministic_algorithms(True)
        self.addCleanup(torch.use_deterministic_algorithms, False)
        model = PlantedKnob()
        candidates = [{"id": "off", "overrides": {"deterministic": False}, "check": TOLERANCES},
                      {"id": "on", "overrides": {"deterministic": True}, "check": TOLERANCES}]
        bench = Bench({"result": path, "warmup": 1, "steps": 0,
                       "blocks": {"candidates": candidates, "settle": 0, "steps": 1,
                                  "cycles": 1}}, lambda: None)
        bench.model_found([model], False, lambda: 1)
        done, index = False, 0
        while not done:
            bench.forward(index, model, (torch.randn(4, 8),))
            done = bench.step_closed([index, 0, 1000000, []])
            index += 1
        with open(path) as result:
            written = json.load(result)
        self.assertEqual(sorted(written["numerics"]), ["off", "on"])
        self.assertFalse(within(written["numerics"]["off"]))
        self.assertTrue(within(written["numerics"]["on"]))
        self.assertEqual({b["candidate"] for b in written["blocks"]}, {"on"},
                         "the refused candidate's blocks were left out")
        self.assertEqual(index, 2 + 2, "step 0, the warm-up with the check, then on's pair")


if __name__ == "__main__":
    unittest.main()
