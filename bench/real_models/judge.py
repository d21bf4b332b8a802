#!/usr/bin/env python3
"""Advisor's findings on a real model beside the by-hand oracle (oracle.py), one table row a fix:
the fix's speedup measured by hand, and the severity of the finding that names its recipe (or
"none"). The issue's bar (#26): every fix worth >= 1.10x named at medium or high, no fix worth
< 1.02x called high, the first finding's recipe the best single fix by hand (counted both for its
first recipe and for any recipe it offers: a merged finding offers bf16 autocast and TF32).

    python3 bench/real_models/judge.py ORACLE.jsonl REPORTS_DIR

REPORTS_DIR holds one report folder per family, named after it (REPORTS_DIR/gpt2/report.json).
Prints a Markdown table and a last line with the counts.
"""

import json
import os
import sys

SEVERITY = {"low": 1, "medium": 2, "high": 3}


def findings_by_recipe(report):
    """recipe -> the most severe finding's severity that offers it."""
    named = {}
    for finding in report.get("findings", []):
        for recipe in [finding.get("recipe")] + finding.get("also_recipes", []):
            if recipe and SEVERITY[finding["severity"]] > SEVERITY.get(named.get(recipe), 0):
                named[recipe] = finding["severity"]
    return named


def autotested(fix):
    """The autotest's verdict on a fix: status, speedup and its interval, where it ran."""
    if not fix:
        return ""
    if not fix.get("speedup"):
        return fix["status"]
    interval = ""
    if fix.get("speedup_ci_low") is not None:
        interval = " [%.2f, %.2f]" % (fix["speedup_ci_low"], fix["speedup_ci_high"])
    return "%s %.2fx%s, %d rounds in %s" % (fix["status"], fix["speedup"], interval,
                                            fix["rounds"], fix.get("measured_in") or "processes")


def main():
    oracle_path, reports = sys.argv[1], sys.argv[2]
    rows, worth, recalled, overcalled, best_first, best_offered, families = [], 0, 0, 0, 0, 0, 0
    for line in open(oracle_path):
        oracle = json.loads(line)
        family = oracle["family"]
        path = os.path.join(reports, family, "report.json")
        if not os.path.exists(path):
            rows.append("| %s | (no report) | | | |" % family)
            continue
        report = json.load(open(path))
        named = findings_by_recipe(report)
        measured = {fix["recipe"]: fix for fix in report.get("fixes", [])}
        offering = [f for f in report.get("findings", []) if f.get("recipe")]
        first = offering[0]["recipe"] if offering else ""
        # A merged finding offers further recipes (fp32-matmul: bf16 autocast, then TF32).
        first_offers = [first] + offering[0].get("also_recipes", []) if offering else []
        hot = report.get("hotspot") or {}
        fixes = sorted(oracle["fixes"].items(), key=lambda kv: -kv[1]["speedup"])
        families += 1
        if fixes and first == fixes[0][0]:
            best_first += 1
        if fixes and fixes[0][0] in first_offers:
            best_offered += 1
        for recipe, by_hand in fixes:
            severity = named.get(recipe, "none")
            if by_hand["speedup"] >= 1.10:
                worth += 1
                recalled += severity in ("medium", "high")
            if by_hand["speedup"] < 1.02 and severity == "high":
                overcalled += 1
            rows.append("| %s | %s | %.2fx (%.1f -> %.1f ms) | %s | %s | %s |" % (
                family, recipe, by_hand["speedup"], oracle["baseline_ms"], by_hand["ms"],
                severity, "first" if recipe == first else "", autotested(measured.get(recipe))))
        rows.append("| %s | hot spot | %s -> %s | dtype %s, batch %s | first: %s | |" % (
            family, hot.get("path"), hot.get("op"), report["run"].get("dtype"),
            report["run"].get("batch_size"), first or "none"))
    print("| family | fix | by hand | advisor's finding | | --autotest |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("real models: %d of %d fixes worth >= 1.10x named medium or high; %d fixes < 1.02x "
          "called high; the first finding's recipe the best fix in %d of %d families, one of its "
          "recipes in %d" % (recalled, worth, overcalled, best_first, families, best_offered))


if __name__ == "__main__":
    main()
