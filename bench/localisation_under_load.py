#!/usr/bin/env python3
"""Localisation on a quiet and on a loaded machine (issue #12, docs/benchmarks.md): the zoo's CPU
cases and a transformer script with one slow instance among four identical layers, each bisected
--runs times with no other work and again beside --busy processes that spin on the cores. Each
run is right or wrong and reports its confidence; a run that is wrong with "high" confidence is
the failure that matters.

    bench/localisation_under_load.py ADVISOR [--runs 10] [--busy 2] [--python /usr/bin/python3]
                                     [--only quiet|loaded]

Each run's verdicts are appended to runs.jsonl in the work folder as they come (its path is
printed first), so an interrupted measurement keeps what it measured; the report folder of each
run judged wrong is kept under wrong/, of each run right but unsure under low/. Do not rebuild
advisor while it runs.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCRIPT = os.path.join(ROOT, "tests", "script", "train_sample.py")
SCRIPT_ANSWER = "encoder.layers.2.ffn"


def zoo_run(args, workdir):
    """One run of the zoo's CPU set: [(case, right, confidence, "path/phase/op" found)]."""
    out = os.path.join(workdir, "zoo.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "zoo.py"), "--device", "cpu",
                    "--advisor", args.advisor, "--python", args.python, "--workdir", workdir,
                    "--reuse-exports", "--skip-known-misses", "--json", out],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = json.load(open(out))
    rows = rows["results"] if isinstance(rows, dict) else rows
    return [(r["case"], r["right"], (r.get("hotspot") or {}).get("confidence", "none"),
             found_text(r.get("hotspot"))) for r in rows]


def found_text(hotspot):
    hotspot = hotspot or {}
    return "%s/%s/%s" % (hotspot.get("path"), hotspot.get("phase"), hotspot.get("op"))


def script_run(args, workdir):
    out = os.path.join(workdir, "script-report")
    subprocess.run([args.advisor, "bisect", "-q", "--out", out, "--", args.python, SCRIPT],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        hotspot = json.load(open(os.path.join(out, "report.json")))["hotspot"] or {}
    except OSError:
        return [("transformer script", False, "no report", "")]
    return [("transformer script", hotspot.get("path") == SCRIPT_ANSWER,
             hotspot.get("confidence", "none"), found_text(hotspot))]


def keep_report(workdir, case, run, kind):
    """The report folder of a run that was wrong or unsure (`kind`: "wrong" or "low"), copied
    before the next run overwrites it: what it measured is what explains it."""
    name = "script" if case == "transformer script" else case
    report = os.path.join(workdir, name + "-report")
    if os.path.isdir(report):
        shutil.copytree(report, os.path.join(workdir, kind, "%s-%s" % (run, name)))


def measure(args, busy, workdir):
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(busy)]
    condition = "loaded" if busy else "quiet"
    tally = collections.defaultdict(collections.Counter)
    try:
        for run in range(args.runs):
            verdicts = zoo_run(args, workdir) + script_run(args, workdir)
            with open(os.path.join(workdir, "runs.jsonl"), "a") as log:
                log.write(json.dumps({"condition": condition, "run": run + 1,
                                      "verdicts": verdicts}) + "\n")
            for case, right, confidence, _ in verdicts:
                tally[case][("right" if right else "wrong", confidence)] += 1
                if not right or confidence != "high":
                    keep_report(workdir, case, "%s-%d" % (condition, run + 1),
                                "wrong" if not right else "low")
            print("%s: run %d of %d done" % (condition, run + 1, args.runs), file=sys.stderr,
                  flush=True)
    finally:
        for spinner in spinners:
            spinner.kill()
    return tally


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("advisor")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--busy", type=int, default=2)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--only", choices=("quiet", "loaded"), help="one condition alone")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="advisor-load-")
    print("runs: " + os.path.join(workdir, "runs.jsonl"), file=sys.stderr, flush=True)
    conditions = [args.only] if args.only else ["quiet", "loaded"]
    results = {c: measure(args, 0 if c == "quiet" else args.busy, workdir) for c in conditions}
    columns = [("right", "high"), ("right", "low"), ("wrong", "low"), ("wrong", "high")]
    print("| case | condition | " + " | ".join("%s, %s" % c for c in columns) + " |")
    print("| --- | --- |" + " ---: |" * len(columns))
    for case in sorted(results[conditions[0]]):
        for condition in conditions:
            counts = results[condition][case]
            print("| %s | %s | %s |" % (case, condition,
                                         " | ".join(str(counts[c]) for c in columns)))
    json.dump({c: {case: {"%s/%s" % k: v for k, v in counts.items()}
                   for case, counts in t.items()} for c, t in results.items()},
              open(os.path.join(workdir, "results.json"), "w"), indent=1)
    print("raw counts: " + os.path.join(workdir, "results.json"), file=sys.stderr)


if __name__ == "__main__":
    main()
