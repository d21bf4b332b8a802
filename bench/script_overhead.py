#!/usr/bin/env python3
"""Script mode's costs, side by side in one run on the same machine (docs/benchmarks.md):

  steady    the script's own step times once advisor has bisected it and let it train on
            (advisor bisect --let-run), against the same steps of the script run alone:
            what being attached costs the steps outside windows;
  windows   the median step of each level's window (report.json, window_step_ms) against
            advisor's unprofiled median step (step.median_ms) and against the script's steps
            alone, beside torch.profiler's profiled steps (a third run: torch.profiler leaves
            CUPTI attached after it ends, which slows the rest of that run) against the same
            steps alone;
  wall      advisor's wall time from start to report, Python start-up and model build included,
            and the windows it used against the depth it reached.

    script_overhead.py ADVISOR SCRIPT [--rounds 2] [--steps N] [--every K] [--out FILE.jsonl]
                       [--timeout S] [--launcher "CMD"] [--profile-steps N (0: no torch.profiler run)]
                       [--cpus 2-5 (every run pinned to these cores)] [-- SCRIPT ARGS...]

SCRIPT prints "steps A-B: T ms/step" every K steps and, with --torch-profiler N, one
"torch.profiler: N steps, T ms/step" line (bench/scripts/vit_train.py, launch_bound_train.py;
under a launcher, rank 0 of bench/scripts/ddp_vit_train.py). --launcher runs the script under
that command instead of --python, e.g. "python3 -m torch.distributed.run --standalone
--nproc_per_node 2": each run is then the whole job, alone and beside advisor alike.
--profile-steps 0 leaves the torch.profiler run out.
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"steps (\d+)-(\d+): ([\d.]+) ms/step")
PROFILED = re.compile(r"torch\.profiler: (\d+) steps, ([\d.]+) ms/step")


def blocks(text):
    return [(int(a), float(ms)) for a, _, ms in BLOCK.findall(text)]


def run(command, timeout_s, cpus=None):
    print("running: " + " ".join(command), file=sys.stderr, flush=True)
    # A launch-bound script's step time follows the core it runs on: pinned, every run (and
    # every process advisor starts, which inherit it) gets the same cores.
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s,
                              preexec_fn=pin)
    except subprocess.TimeoutExpired as expired:
        tail = (expired.stderr or b"")[-3000:]
        sys.exit("timed out after %d s: %s\nstdout tail:\n%s\nstderr tail:\n%s" % (
            timeout_s, " ".join(command), (expired.stdout or b"")[-2000:].decode(errors="replace"),
            tail.decode(errors="replace")))
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (done.returncode, " ".join(command), done.stderr[-3000:]))
    return done.stdout, done.stderr


def parse_cpus(text):
    cpus = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("advisor")
    parser.add_argument("script")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--profile-steps", type=int, default=20,
                        help="torch.profiler's profiled steps in its own run; 0: no such run")
    parser.add_argument("--out", default="script-overhead.jsonl")
    parser.add_argument("--cpus", help="run every process on these cores, e.g. 2-5 or 2,3")
    parser.add_argument("--timeout", type=int, default=240, help="seconds per run")
    parser.add_argument("--launcher", default="",
                        help="a command that starts the script's ranks, instead of --python")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.script_args = argv[split + 1:]
    cpus = parse_cpus(args.cpus) if args.cpus else None
    starter = shlex.split(args.launcher) if args.launcher else [args.python]
    script = starter + [args.script, "--steps", str(args.steps), "--report-every",
                        str(args.every)] + args.script_args
    # The last third of the run: after advisor's windows, which the first third holds.
    tail_from = args.steps * 2 // 3
    for round_number in range(1, args.rounds + 1):
        def attach():
            with tempfile.TemporaryDirectory() as out:
                attached, _ = run([args.advisor, "bisect", "-q", "--let-run", "--out", out, "--"] +
                                  script, args.timeout, cpus)
                return attached, json.load(open(out + "/report.json"))
        # Even rounds run advisor first: a machine that speeds up or slows down over the rounds
        # (clocks, caches, a neighbour's job) then falls on both sides of the ratio.
        if round_number % 2 == 0:
            attached, report = attach()
        alone, _ = run(script, args.timeout, cpus)
        if round_number % 2 == 1:
            attached, report = attach()
        # Its own run: torch.profiler leaves CUPTI attached after it ends (until kineto detaches
        # it), which slows every later step of that process, so no step of it is a reference.
        # --profile-steps 0: no torch.profiler run (the steady and window ratios alone, faster).
        profiler_run = (run(script + ["--torch-profiler", str(args.profile_steps)], args.timeout,
                            cpus)[0]
                        if args.profile_steps > 0 else "")
        alone_tail = [ms for start, ms in blocks(alone) if start >= tail_from]
        attached_tail = [ms for start, ms in blocks(attached) if start >= tail_from]
        profiled = PROFILED.search(profiler_run)
        alone_ms = statistics.median(ms for _, ms in blocks(alone))
        levels = [l for l in report["bisection"]["levels"] if l.get("window_step_ms")]
        record = {
            "script": args.script.split("/")[-1], "round": round_number,
            "launcher": args.launcher or None,
            "steady_ratio": statistics.median(attached_tail) / statistics.median(alone_tail),
            "alone_ms": statistics.median(alone_tail),
            "attached_ms": statistics.median(attached_tail),
            "advisor_window_ratios": [l["window_step_ms"] / report["step"]["median_ms"]
                                      for l in levels],
            # Both tools' profiled steps against the same reference: the script's steps alone.
            "advisor_window_vs_alone": [l["window_step_ms"] / alone_ms for l in levels],
            "profiler_ratio": float(profiled.group(2)) / alone_ms if profiled else None,
            "wall_s": report["run"]["wall_s"],
            "windows": report["run"]["windows"],
            "depth": len({l["depth"] for l in report["bisection"]["levels"]}),
            "hotspot": (report["hotspot"] or {}).get("path"),
            "op": (report["hotspot"] or {}).get("op"),
        }
        print(json.dumps(record), flush=True)
        with open(args.out, "a") as out:  # each round as it ends: a cut-off run keeps its rounds
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
