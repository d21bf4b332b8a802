"""How the zoo judges a report against a case's answer (scripts/zoo/judge.py)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "zoo"))
import judge  # noqa: E402


def report_with(findings, hotspot=None):
    return {"hotspot": hotspot or {"path": "towers.item.2", "phase": "backward",
                                   "op": "AddmmBackward0"},
            "findings": findings}


def finding(rule, recipe, also_recipes=(), severity="high", path=""):
    return {"rule": rule, "recipe": recipe, "also_recipes": list(also_recipes),
            "severity": severity, "path": path}


ANSWER = {"path": "towers.item.2", "phase": "backward", "op": "AddmmBackward0",
          "rule": "fp32-matmul", "recipe": "tf32-matmul"}


class JudgeTest(unittest.TestCase):
    def test_the_recipe_of_a_merged_finding_may_be_one_of_its_further_recipes(self):
        merged = finding("fp32-matmul", "bf16-autocast", ["tf32-matmul"])
        self.assertEqual(judge.judge(ANSWER, report_with([merged])), (True, ""))

    def test_a_finding_without_the_recipe_is_wrong(self):
        other = finding("fp32-matmul", "bf16-autocast", ["channels-last"])
        self.assertEqual(judge.judge(ANSWER, report_with([other])),
                         (False, "fp32-matmul without recipe 'tf32-matmul'"))

    def test_a_report_before_merged_findings_is_read_too(self):
        alone = finding("fp32-matmul", "tf32-matmul")
        del alone["also_recipes"]
        self.assertEqual(judge.judge(ANSWER, report_with([alone])), (True, ""))

    def test_the_hot_spot_is_judged_before_the_rule(self):
        wrong_phase = {"path": "towers.item.2", "phase": "forward", "op": "AddmmBackward0"}
        right, why = judge.judge(ANSWER, report_with([], wrong_phase))
        self.assertFalse(right)
        self.assertEqual(why, "phase 'forward', expected 'backward'")

    def test_a_clean_answer_allows_only_its_host_rules_high(self):
        clean = {"clean": True, "host_rules": ["fresh-memory-pages"]}
        host = finding("fresh-memory-pages", "keep-freed-memory")
        model = finding("fp32-matmul", "tf32-matmul")
        self.assertEqual(judge.judge(clean, report_with([host])), (True, ""))
        self.assertEqual(judge.judge(clean, report_with([host, model])),
                         (False, "high findings: fp32-matmul"))


if __name__ == "__main__":
    unittest.main()
