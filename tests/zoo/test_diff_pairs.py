"""How the zoo's diff pairs judge a diff.json (scripts/zoo/diff_pairs.py), and which cases pair."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "zoo"))
import diff_pairs  # noqa: E402

PLANTED = "trunk.stages.2.units.4.mix"


def module(path, delta_ms, own_time=False):
    return {"path": path, "delta_ms": delta_ms, "own_time": own_time}


def diff_with(modules, verdict="faster", by_instance=0.98, by_op=0.97):
    return {"step": {"verdict": verdict, "why": "", "delta_ms": -20, "before_ms": 50,
                     "after_ms": 30},
            "modules": modules, "modules_explained_share": by_instance,
            "ops_explained_share": by_op, "ops": [{"name": "aten::mm"}]}


class JudgeDiffTest(unittest.TestCase):
    def test_the_planted_instance_leading_a_faster_step_is_right(self):
        self.assertEqual(diff_pairs.judge_diff(diff_with([module(PLANTED, -18)]), PLANTED),
                         (True, ""))

    def test_an_ancestor_both_runs_stopped_at_may_lead(self):
        right, _ = diff_pairs.judge_diff(diff_with([module("trunk.stages.2", -18)]), PLANTED)
        self.assertTrue(right)

    def test_a_sibling_or_a_prefix_that_is_no_ancestor_is_wrong(self):
        for path in ("trunk.stages.1", "trunk.stages.2.units.4.mi"):
            right, why = diff_pairs.judge_diff(diff_with([module(path, -18)]), PLANTED)
            self.assertFalse(right, path)
            self.assertIn(f"leads: {path}", why)

    def test_an_ancestors_own_time_leading_is_wrong(self):
        right, why = diff_pairs.judge_diff(diff_with([module("trunk", -18, own_time=True)]),
                                           PLANTED)
        self.assertFalse(right)
        self.assertIn("(own time)", why)

    def test_each_share_below_95_percent_and_a_step_not_faster_are_named(self):
        right, why = diff_pairs.judge_diff(
            diff_with([module(PLANTED, -18)], verdict="no-change", by_instance=0.94, by_op=0.9),
            PLANTED)
        self.assertFalse(right)
        self.assertIn("verdict no-change", why)
        self.assertIn("by instance 94.0% < 95%", why)
        self.assertIn("by op 90.0% < 95%", why)

    def test_a_diff_without_modules_is_wrong(self):
        self.assertEqual(diff_pairs.judge_diff(diff_with([]), PLANTED),
                         (False, "no module compared"))


class PairsTest(unittest.TestCase):
    def test_a_pair_needs_a_fixed_variant_and_a_cpu_path(self):
        cases = {"a": {"fixed": "x", "cpu": {"path": "m"}},
                 "b": {"cpu": {"path": "m"}},
                 "c": {"fixed": "x", "cpu": {"skip": "GPU only"}},
                 "d": {"fixed": "x", "cpu": {"rule": "r"}}}
        self.assertEqual(diff_pairs.pairs(cases), ["a"])

    def test_the_zoo_has_at_least_two_pairs(self):
        cases = diff_pairs.zoo.judge.load_cases(os.path.join(diff_pairs.HERE, "cases"))
        self.assertGreaterEqual(len(diff_pairs.pairs(cases)), 2)


if __name__ == "__main__":
    unittest.main()
