#!/usr/bin/env python3
"""Issue #28's bar for the seed script, judged: `advisor bisect --autotest` of
bench/scripts/vit_train.py (its report.json) beside the same fixes timed by hand in the same call
(bench/seed_by_hand.py's JSON line). Prints one table and the verdicts for summary.txt:

    seed_judge.py REPORT.json BY_HAND.json [BY_HAND.json ...] [--wall-s S] [--bar-s 240]
                  [--within 0.05]

Several BY_HAND files (long runs timed before and after advisor's run: a bracket) are pooled:
a setting's step is the mean over all their processes, a fix's range the lowest and highest of
any one round's baseline process over the same round's fix process.

- each fix advisor tried that was timed by hand (a combination matched by its members, whatever
  their order): advisor's status, speedup and interval beside the speedup by hand, and whether
  advisor's is within --within of it (relative);
- each fix decided with an interval: verified or rejected, with speedup_ci_low/high;
- with --wall-s, the whole run's wall time against --bar-s.
Exits 0 whatever it judged (the summary says it); 2 on unreadable input.
"""

import argparse
import json
import sys


def members(recipe):
    return frozenset(recipe.split("+"))


def pooled(by_hands):
    """One by-hand record of several runs of long runs (seed_by_hand.py --long-runs): their
    processes side by side, as if one run had made them all."""
    if len(by_hands) == 1:
        return by_hands[0]
    if any(run.get("method") != "long runs" for run in by_hands):
        raise ValueError("only long runs can be pooled")

    def mean(values):
        return sum(values) / len(values)

    baseline = [ms for run in by_hands for ms in run["baseline"]["process_step_ms"]]
    fixes = {}
    for name in by_hands[0]["fixes"]:
        if not all(name in run["fixes"] for run in by_hands):
            continue
        steps = [ms for run in by_hands for ms in run["fixes"][name]["process_step_ms"]]
        pairs = [b / f for run in by_hands for b, f in zip(
            run["baseline"]["process_step_ms"], run["fixes"][name]["process_step_ms"])]
        fixes[name] = {"step_ms": mean(steps), "speedup": mean(baseline) / mean(steps),
                       "speedup_range": [min(pairs), max(pairs)]}
    return {"baseline_ms": mean(baseline), "fixes": fixes}


def judge(report, by_hand, within):
    """The rows of the table and the counts: (rows, close, timed, decided, tried)."""
    hand = {members(name): fix for name, fix in by_hand["fixes"].items()}
    rows, close, timed, decided = [], 0, 0, 0
    fixes = report.get("fixes", [])
    for fix in fixes:
        low, high = fix.get("speedup_ci_low"), fix.get("speedup_ci_high")
        with_interval = low is not None and high is not None
        if with_interval and fix.get("status") in ("verified", "rejected"):
            decided += 1
        interval = "[%.2f, %.2f]" % (low, high) if with_interval else "no interval"
        speedup = fix.get("speedup")
        mine = hand.get(members(fix["recipe"]))
        if mine is None or not speedup:
            verdict = "not timed by hand" if mine is None else "not measured"
            rows.append((fix["recipe"], fix.get("status"), speedup, interval,
                         "%.3fx" % mine["speedup"] if mine else None, None, verdict))
            continue
        timed += 1
        gap = speedup / mine["speedup"] - 1
        ok = abs(gap) <= within
        close += ok
        by_hand_text = "%.3fx" % mine["speedup"]
        if len(mine.get("speedup_range", [])) == 2:  # several rounds of long runs
            by_hand_text += " (%.3f-%.3f)" % tuple(mine["speedup_range"])
        verdict = "pass" if ok else "FAIL"
        spread = mine.get("speedup_range", [])
        if not ok and len(spread) == 2 and spread[0] <= speedup <= spread[1]:
            verdict += " (inside the by-hand pairs' range)"
        rows.append((fix["recipe"], fix.get("status"), speedup, interval, by_hand_text, gap,
                     verdict))
    return rows, close, timed, decided, len(fixes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("by_hand", nargs="+")
    parser.add_argument("--wall-s", type=float)
    parser.add_argument("--bar-s", type=float, default=240)
    parser.add_argument("--within", type=float, default=0.05)
    args = parser.parse_args()
    try:
        with open(args.report) as report_file:
            report = json.load(report_file)
        runs = []
        for name in args.by_hand:
            with open(name) as hand_file:
                runs.append(json.loads(hand_file.read().strip().splitlines()[-1]))
        by_hand = pooled(runs)
    except (OSError, ValueError, IndexError, KeyError) as error:
        print("seed_judge.py: cannot read the inputs: %s" % error, file=sys.stderr)
        return 2
    rows, close, timed, decided, tried = judge(report, by_hand, args.within)
    print("| fix | advisor | speedup | 95 %% interval | by hand (baseline %.1f ms) | gap | "
          "within %.0f %% |" % (by_hand["baseline_ms"], 100 * args.within))
    print("|---|---|---:|---|---:|---:|---|")
    for recipe, status, speedup, interval, hand, gap, verdict in rows:
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            recipe, status, "%.3fx" % speedup if speedup else "-", interval,
            hand or "-", "%+.1f %%" % (100 * gap) if gap is not None else "-",
            verdict))
    print("seed_judge: within %.0f %% of by hand: %d of %d timed (%s); decided with an interval "
          "(verified or rejected): %d of %d" % (
              100 * args.within, close, timed, "pass" if timed and close == timed else "FAIL",
              decided, tried))
    if args.wall_s is not None:
        print("seed_judge: the whole bisect --autotest run in %.0f s (bar %.0f s): %s" % (
            args.wall_s, args.bar_s, "pass" if args.wall_s <= args.bar_s else "FAIL"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
