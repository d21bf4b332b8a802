#!/usr/bin/env python3
"""The straggler verdict on two GPUs (scripts/gpu-check.sh stragglers; issue #26): advisor bisect
under torchrun on tests/script_runs/ddp_train.py (NCCL, one rank per GPU), each case run ROUNDS
times, each report judged against what was planted:

    gpu      rank 1's blocks.2 queues 16 extra 4096x4096 multiplies: slow on its GPU only
    host     rank 1's blocks.2 sleeps 20 ms on the host
    data     rank 1's DataLoader takes 20 ms more per batch
    balanced nothing planted: no rank may be called a straggler

    straggler_check.py ADVISOR OUTDIR [--rounds N] [--cases gpu,host,data,balanced]

Prints one JSON line per run and a Markdown table of the verdicts (docs/gpu-check.md).
"""

import argparse
import json
import os
import subprocess
import sys
import time

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "script_runs",
                      "ddp_train.py")
CASES = {
    "gpu": ["--slow-rank", "1", "--slow-how", "compute", "--slow-work", "16"],
    "host": ["--slow-rank", "1", "--slow-how", "sleep", "--slow-work", "20"],
    "data": ["--slow-rank", "1", "--slow-how", "data", "--slow-work", "20"],
    "balanced": [],
}
# The rules whose finding names a straggler rank.
STRAGGLER_RULES = ("straggler-rank", "unbalanced-data-per-rank")


def run(advisor, outdir, case, round_index):
    out = os.path.join(outdir, "%s-%d" % (case, round_index))
    command = [advisor, "bisect", "-q", "--out", out, "--", sys.executable, "-m",
               "torch.distributed.run", "--standalone", "--nproc_per_node", "2", SCRIPT,
               "--device", "cuda", "--width", "4096", "--epochs", "1000"] + CASES[case]
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - started
    record = {"case": case, "round": round_index, "exit": result.returncode,
              "seconds": round(seconds, 1)}
    try:
        with open(os.path.join(out, "report.json")) as report_file:
            report = json.load(report_file)
    except (OSError, ValueError) as error:
        record["error"] = "%s; stderr: %s" % (error, result.stderr[-400:])
        return record
    distributed = report.get("distributed") or {}
    straggler = distributed.get("straggler") or {}
    findings = [f for f in report["findings"] if f["rule"] in STRAGGLER_RULES]
    record.update({
        "timed_by": report["step"].get("timed_by"),
        "step_ms": round(report["step"]["median_ms"], 2),
        "straggler_rank": straggler.get("rank"),
        "path": straggler.get("path"),
        "late_ms": round(straggler.get("late_ms", 0), 2),
        "pre_backward_excess_ms": straggler.get("pre_backward_excess_ms"),
        "unprofiled_excess_ms": straggler.get("unprofiled_excess_ms"),
        "holds_unprofiled": straggler.get("holds_unprofiled"),
        "findings": ["%s [%s]" % (f["rule"], f["severity"]) for f in findings],
        "finding_text": [f["message"][:300] for f in findings],
        "hotspot": (report.get("hotspot") or {}).get("path"),
        "ranks_unprofiled": [r.get("unprofiled") for r in distributed.get("ranks", [])],
    })
    record["right"] = judge(case, record, findings)
    return record


def judge(case, record, findings):
    """Whether the verdict is what was planted: the rank named by a finding (and blocks.2 where
    the time is spent in a module), or no straggler finding on the balanced job."""
    if case == "balanced":
        return not findings
    if not findings or record["straggler_rank"] != 1:
        return False
    if case in ("gpu", "host"):
        return any("blocks.2" in f["message"] for f in findings)
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("advisor")
    parser.add_argument("outdir")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cases", default="gpu,balanced,host,data")
    args = parser.parse_args()
    records = []
    for case in args.cases.split(","):
        for round_index in range(args.rounds):
            record = run(args.advisor, args.outdir, case, round_index)
            print(json.dumps(record), flush=True)
            records.append(record)
    print("\n| case | runs | right | straggler named | finding | unprofiled excess (ms) | timed by |")
    print("|---|---|---|---|---|---|---|")
    for case in args.cases.split(","):
        mine = [r for r in records if r["case"] == case]
        right = sum(1 for r in mine if r.get("right"))
        named = ", ".join(str(r.get("straggler_rank")) for r in mine)
        found = "; ".join(",".join(r.get("findings", [])) or "none" for r in mine)
        excess = ", ".join("%.1f" % r["unprofiled_excess_ms"] if r.get("unprofiled_excess_ms")
                           is not None else "-" for r in mine)
        timed = ",".join(sorted({str(r.get("timed_by")) for r in mine}))
        print("| %s | %d | %d | %s | %s | %s | %s |" % (case, len(mine), right, named, found,
                                                        excess, timed))


if __name__ == "__main__":
    main()
