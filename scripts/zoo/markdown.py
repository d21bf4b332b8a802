#!/usr/bin/env python3
"""Writes a dated Markdown section from repeated zoo runs (Python 3 stdlib only).

    markdown.py RUN.json [RUN.json ...] --command "CMD" [--machine TEXT] [--date YYYY-MM-DD]
                [--fixes AUTOTEST.json ...] [--heading-level N]

Each RUN.json is one ``scripts/zoo.py --json`` run of the same cases on the same device. The
section states the date, the machine, the PyTorch (LibTorch) and advisor versions the reports
name, and the command; then per case how many runs named the expected answer and the wall time
of ``advisor bisect`` (report ``run.wall_s``) as the median with min-max over the runs, with the
profiled windows used; then the wrong answers with what advisor found and why it is wrong, the
known misses, and, from ``--fixes`` (runs with ``--autotest``, one or more cases each), every fix
the autotester measured with its step-time speedup.
"""

import argparse
import datetime
import json
import statistics
import sys

DETAIL_CHARS = 100  # of a fix's detail (why it was skipped, rejected or failed) in the table


def _load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _spread(values):
    """'median (min-max)' of the numbers, '-' when there are none."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    low, high = min(values), max(values)
    if len(values) == 1 or low == high:
        return f"{statistics.median(values):.1f}"
    return f"{statistics.median(values):.1f} ({low:.1f}-{high:.1f})"


def _range(values):
    """'3' or '3-4' for integers, '-' when there are none."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return "-"
    return str(values[0]) if values[0] == values[-1] else f"{values[0]}-{values[-1]}"


def _versions(runs):
    """The distinct (device_name, torch_version, advisor_version) the reports name."""
    seen = []
    for run in runs:
        for result in run["results"]:
            key = tuple(result.get(k, "") for k in ("device_name", "torch_version",
                                                     "advisor_version"))
            if any(key) and key not in seen:
                seen.append(key)
    return seen


def _cell(text):
    return str(text).replace("|", "\\|")


def localisation_table(runs):
    """Lines of the per-case table, the totals line and the list of wrong answers."""
    order = [r["case"] for r in runs[0]["results"]]
    by_case = {case: [next((r for r in run["results"] if r["case"] == case), None)
                      for run in runs] for case in order}
    lines = ["| case | expected | right | windows | wall s, median (min-max) |",
             "|---|---|---:|---:|---:|"]
    wrong = []
    for case in order:
        results = [r for r in by_case[case] if r is not None]
        right = sum(r["right"] for r in results)
        label = case + (" (known miss)" if results[0]["known_miss"] else "")
        lines.append(f"| {label} | `{_cell(results[0]['expected'])}` | {right}/{len(results)} | "
                     f"{_range(r['windows'] for r in results)} | "
                     f"{_spread(r['wall_s'] for r in results)} |")
        for index, r in enumerate(by_case[case], 1):
            if r is not None and not r["right"]:
                wrong.append(f"- {case}, run {index}: found `{_cell(r['found'])}` ({r['why']})")
    totals = []
    for index, run in enumerate(runs, 1):
        counted = [r for r in run["results"] if not r["known_miss"]]
        totals.append(f"run {index}: localized {sum(r['right'] for r in counted)}/{len(counted)}")
    return lines, "; ".join(totals), wrong


def fixes_table(autotest):
    """Lines of the table of the autotester's fixes, one row per case and recipe."""
    lines = ["| case | recipe | status | speedup (95% interval, rounds) | baseline ms | fixed ms "
             "| detail |", "|---|---|---|---:|---:|---:|---|"]
    for result in autotest["results"]:
        for fix in result.get("fixes", []):
            speedup = "-"
            if fix.get("speedup") is not None:
                speedup = f"{fix['speedup']:.3f}x"
                if fix.get("speedup_ci_low") is not None and fix.get("speedup_ci_high") is not None:
                    speedup += (f" ({fix['speedup_ci_low']:.3f}-{fix['speedup_ci_high']:.3f}, "
                                f"{fix.get('rounds', 0)} rounds)")
            baseline = (fix.get("baseline") or {}).get("median_ms")
            candidate = (fix.get("candidate") or {}).get("median_ms")
            lines.append(f"| {result['case']} | {fix['recipe']} | {fix['status']} | {speedup} | "
                         f"{'-' if baseline is None else f'{baseline:.1f}'} | "
                         f"{'-' if candidate is None else f'{candidate:.1f}'} | "
                         f"{_cell(fix.get('detail', '')[:DETAIL_CHARS])} |")
    return lines if len(lines) > 2 else []


def render(runs, command, machine, date, autotest=None, level=3):
    device = runs[0]["device"]
    versions = _versions(runs)
    names = "; ".join(f"{d or 'unnamed device'}, LibTorch {t}, advisor {a}" for d, t, a in versions)
    heading = "#" * level
    out = [f"{heading} {date}, {device}: {machine or names}", "",
           f"Command: `{command}`, {len(runs)} run(s). Reports name: {names or 'no report'}.", ""]
    lines, totals, wrong = localisation_table(runs)
    out += lines + ["", totals + "."]
    if wrong:
        out += ["", "Wrong answers:"] + wrong
    misses = [r for r in runs[0]["results"] if r["known_miss"]]
    if misses:
        out += ["", "Known misses, not counted:"] + [f"- {r['case']}: {r['known_miss']}"
                                                     for r in misses]
    if runs[0].get("skipped"):
        out += ["", f"Not run on {device}: {', '.join(runs[0]['skipped'])}."]
    if autotest is not None:
        table = fixes_table(autotest)
        out += ["", f"{heading}# Fixes measured by the autotester (`--autotest`, one run)", ""]
        out += table or ["No finding named a recipe the autotester could apply."]
        out += ["", "The speedup is the baseline step's median over the fixed step's, both in "
                    "separate processes; `verified` means within the numerics tolerance and "
                    "faster beyond the noise (docs/recipes.md)."]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN.json")
    parser.add_argument("--command", required=True, help="the command that made the runs")
    parser.add_argument("--machine", default="", help="e.g. the GPU's name and driver")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--fixes", nargs="+", default=[], metavar="AUTOTEST.json",
                        help="zoo.py --json runs made with --autotest")
    parser.add_argument("--heading-level", type=int, default=3)
    args = parser.parse_args()
    runs = [_load(p) for p in args.runs]
    if len({run["device"] for run in runs}) != 1:
        raise SystemExit("markdown: the runs are not all on one device")
    autotest = None
    if args.fixes:
        autotest = {"results": [r for path in args.fixes for r in _load(path)["results"]]}
    sys.stdout.write(render(runs, args.command, args.machine, args.date, autotest,
                            args.heading_level))


if __name__ == "__main__":
    main()
