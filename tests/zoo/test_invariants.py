"""The zoo's report invariants (scripts/zoo/invariants.py) on reports built to break each one."""

import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "zoo"))
import invariants  # noqa: E402


def consistent_report():
    return {
        "step": {"shares": {"data": 0.1, "forward": 0.3, "backward": 0.5, "optimizer": 0.08,
                            "rest": 0.02}},
        "bisection": {"levels": [
            {"depth": 1, "parent": "", "candidates": [
                {"path": "blocks", "instances": 4, "share": 0.9, "forward_ms": 4.0,
                 "backward_ms": 8.0},
                {"path": "head", "instances": 1, "share": 0.1, "forward_ms": 0.5,
                 "backward_ms": 1.0}]}]},
        "modules": [{"path": "head", "measured": True, "forward_ms": 0.5, "backward_ms": 1.0}],
        "hotspot": {"path": "blocks.2", "source": {"file": "/home/me/model.py", "line": 7}},
    }


class InvariantsTest(unittest.TestCase):
    def test_a_consistent_report_breaks_none(self):
        self.assertEqual(invariants.violations(consistent_report()), [])

    def test_a_traces_report_without_a_bisection_is_checked_too(self):
        report = consistent_report()
        report["bisection"] = None
        self.assertEqual(invariants.violations(report), [])
        report["step"]["shares"]["rest"] = 0.2
        self.assertEqual(invariants.violations(report),
                         ["step phase shares add up to 118.0%, not 100%"])

    def test_phase_shares_must_add_up(self):
        report = consistent_report()
        report["step"]["shares"]["rest"] = 0.2
        self.assertEqual(invariants.violations(report),
                         ["step phase shares add up to 118.0%, not 100%"])

    def test_no_candidate_holds_more_than_its_parent(self):
        report = consistent_report()
        report["bisection"]["levels"][0]["candidates"][0]["share"] = 1.001
        self.assertEqual(invariants.violations(report), ["blocks holds 100.1% of its parent ''"])

    def test_a_module_has_one_time_across_tables(self):
        report = consistent_report()
        report["modules"][0]["backward_ms"] = 1.3
        self.assertEqual(invariants.violations(report), [
            "head has two backward times: 1 in level 1's table, 1.3 in the modules table"])

    def test_the_hot_spots_source_is_not_torchs_own(self):
        for file in ("/usr/lib/python3/dist-packages/torch/nn/modules/linear.py",
                     "/venv/lib/python3.12/site-packages/torch/functional.py"):
            report = copy.deepcopy(consistent_report())
            report["hotspot"]["source"]["file"] = file
            self.assertEqual(invariants.violations(report),
                             ["the hot spot's source is torch's own: %s:7" % file])

    def test_a_findings_source_is_not_torchs_own(self):
        report = consistent_report()
        file = "/usr/lib/python3/dist-packages/torch/nn/functional.py"
        report["findings"] = [{"rule": "gather-backward",
                               "source": {"file": "/home/me/model.py", "line": 9}},
                              {"rule": "fp32-matmul", "source": {"file": file, "line": 12}},
                              {"rule": "unfused-optimizer", "source": None}]
        self.assertEqual(invariants.violations(report),
                         ["finding fp32-matmul's source is torch's own: %s:12" % file])


if __name__ == "__main__":
    unittest.main()
