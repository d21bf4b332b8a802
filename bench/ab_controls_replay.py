#!/usr/bin/env python3
"""The autotest's controls replayed from recorded blocks (tests/data/ab_controls/busy-N.json from
the 2-core VM and h200-N.json from the GPU machine's controls stage, or a new recording:
ADVISOR_CONTROLS_RECORD=FILE build/tests/script_runs/ab_controls_tests --gtest_filter=TEST) through
the estimator the autotest used until issue #28's controls and the one it uses now, to compare
their no-op "no change" rate and planted-slowdown power on the same steps:

    old  each block's median step; the mean of the pairs' log ratios; Student's t with the
         steps' spread (median absolute deviation, as independent draws) as a floor
    new  each block's fastest step; Huber's centre of the pairs' log ratios; Student's t with the
         steps' spread (the fastest step's exact bootstrap) counted as one more pair
         (engine/autotest/ab_stats.cpp, docs/recipes.md#reading-the-numbers)

    ab_controls_replay.py RECORDING.json... [--cycles 6]

The C++ is what the autotest runs and tests/autotest/ab_controls_replay_test.cpp asserts on;
this is the comparison, printed once per recording with the pairs' spread under each statistic.
"""

import argparse
import json
import math
from statistics import mean, median

T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
BAND = 0.02
HUBER_CAP = 1.345


def t95(degrees):
    if degrees <= 30:
        return T95[degrees - 1]
    return 2.000 if degrees <= 60 else 1.980 if degrees <= 120 else 1.960


def mad_sigma(values):
    centre = median(values)
    return 1.4826 * median([abs(v - centre) for v in values])


def median_log_variance(steps):
    sigma = mad_sigma([math.log(s) for s in steps])
    return math.pi / 2 * sigma * sigma / len(steps)


def fastest_log_variance(steps):
    logs = sorted(math.log(s) for s in steps)
    n = len(logs)
    chances = [((n - j) / n) ** n - ((n - j - 1) / n) ** n for j in range(n)]
    centre = sum(c * (l - logs[0]) for c, l in zip(chances, logs))
    return sum(c * (l - logs[0] - centre) ** 2 for c, l in zip(chances, logs))


def old_interval(pairs):
    ratios = [math.log(median(b) / median(c)) for b, c in pairs]
    n = len(ratios)
    centre = mean(ratios)
    between = sum((r - centre) ** 2 for r in ratios) / (n - 1)
    within = mean([median_log_variance(b) + median_log_variance(c) for b, c in pairs])
    half = t95(n - 1) * math.sqrt(max(between, within) / n)
    return centre, centre - half, centre + half


def huber(values):
    n = len(values)
    scale = mad_sigma(values)
    if scale == 0:
        centre = mean(values)
        return centre, sum((v - centre) ** 2 for v in values) / (n - 1)
    cap = HUBER_CAP * scale
    centre = median(values)
    for _ in range(100):
        weights = [1 if abs(v - centre) <= cap else cap / abs(v - centre) for v in values]
        moved = sum(w * v for w, v in zip(weights, values)) / sum(weights)
        settled = abs(moved - centre) <= 1e-12 * scale
        centre = moved
        if settled:
            break
    psi = [max(-HUBER_CAP, min(HUBER_CAP, (v - centre) / scale)) for v in values]
    slope = max(sum(abs(v - centre) <= cap for v in values), 1) / n
    return centre, scale * scale * mean([p * p for p in psi]) / slope ** 2 * n / (n - 1)


def new_interval(pairs):
    ratios = [math.log(min(b) / min(c)) for b, c in pairs]
    n = len(ratios)
    centre, variance = huber(ratios)
    within = mean([fastest_log_variance(b) + fastest_log_variance(c) for b, c in pairs])
    pooled = ((n - 1) * variance + within) / n
    half = t95(max(1, n - 2)) * math.sqrt(pooled / n)
    return centre, centre - half, centre + half


def decide(centre, low, high):
    """DecideAb after the last round, in logs."""
    upper, lower = math.log(1 + BAND), math.log(1 - BAND)
    if low > upper or (low > 0 and centre >= upper):
        return "faster"
    if high < lower or (high < 0 and centre <= lower):
        return "slower"
    return "no-change"


def pairs_of(document, candidate, steps=5):
    cycles = {}
    for block in document["blocks"]:
        if block["candidate"] == candidate and len(block["step_ms"]) >= steps:
            cycles.setdefault(block["cycle"], {})[block["side"]] = block["step_ms"]
    return [(c["baseline"], c["candidate"]) for _, c in sorted(cycles.items())
            if "baseline" in c and "candidate" in c]


def spread(pairs, statistic):
    ratios = [math.log(statistic(b) / statistic(c)) for b, c in pairs]
    centre, robust = median(ratios), mad_sigma(ratios)
    sd = math.sqrt(sum((r - mean(ratios)) ** 2 for r in ratios) / (len(ratios) - 1))
    far = sum(abs(r - centre) > 3 * robust for r in ratios)
    return f"sd {sd:.3f}, robust sd {robust:.3f}, {far} pairs beyond 3 robust sd"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+")
    parser.add_argument("--cycles", type=int, default=6, help="pairs an experiment (the autotest's)")
    args = parser.parse_args()
    for path in args.recordings:
        with open(path) as file:
            document = json.load(file)
        print(path)
        for candidate, goal in (("no-op", "no-change"), ("slower", "slower")):
            pairs = pairs_of(document, candidate)
            experiments = [pairs[i:i + args.cycles]
                           for i in range(0, len(pairs) - args.cycles + 1, args.cycles)]
            print(f"  {candidate}: {len(pairs)} pairs; log ratios by medians "
                  f"{spread(pairs, median)}; by the fastest {spread(pairs, min)}")
            for name, interval in (("old", old_interval), ("new", new_interval)):
                verdicts = [decide(*interval(e)) for e in experiments]
                print(f"    {name}: {goal} in {verdicts.count(goal)} of {len(verdicts)} "
                      f"(faster {verdicts.count('faster')}, slower {verdicts.count('slower')})")


if __name__ == "__main__":
    main()
