#!/usr/bin/env python3
"""Runs `advisor diff` on the zoo's pairs and checks that it explains what the fix changed.

    diff_pairs.py [--advisor PATH] [--python PATH] [--workdir DIR] [--timeout S]
                  [--steps N] [--attempts N] [--json FILE] [CASE ...]

A pair is a zoo case with its planted cost (before) and its fixed variant (after: the case's
``build(size, fixed=True)``, whose ``.expected.json`` says under "fixed" what changes); by default
every case that has one and a CPU answer. Each side is exported and bisected on the CPU as
scripts/zoo.py does (its code), then ``advisor diff BEFORE AFTER --out CASE-diff``; the pair is
right when its diff.json says

- the step got faster: ``step.verdict`` is "faster";
- the module table explains at least 95 % of the step's change (``modules_explained_share``:
  the instances and the forward and backward outside them; the rest is what the loss, the
  optimizer and the rest of the step changed) and the ops at least 95 % (``ops_explained_share``:
  the rest is time in no op);
- the module whose change leads is the planted instance (the case's CPU answer's path) or, where
  the after's bisection stopped above it (its fix left nothing there to descend to), the deepest
  of its ancestors both runs measured: the diff compares no deeper (docs/diff.md); never a
  module's own time outside its children.

--steps (default 10, twice advisor's) sets the timed and profiled steps of each window: a step's
median over more of them moves less when other work takes the CPUs now and then. A pair that is
wrong is run again, both sides, up to --attempts runs in all; every wrong try is
listed. Prints a table and ``explained K/N``; the exit status is 0 exactly when K equals N. The
table's "instances" column, what the instances' rows alone hold of the step's change, is not
judged: on the CPU the autograd engine's own time and the loss lie outside every instance, and
it weighs level windows' shares against the baseline window's, which a loaded machine moves.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import zoo  # noqa: E402  (scripts/zoo.py: the export and the bisection, as the zoo runs them)

EXPLAINED_AT_LEAST = 0.95


def pairs(cases):
    """The cases with a fixed variant and a CPU answer naming the planted instance."""
    return sorted(n for n, c in cases.items() if "fixed" in c and "path" in c["cpu"])


def run_diff(advisor, before_dir, after_dir, out_dir, timeout):
    """Runs advisor diff; returns (diff.json or None, error text)."""
    shutil.rmtree(out_dir, ignore_errors=True)  # a diff left by an earlier try must not count
    command = [advisor, "diff", before_dir, after_dir, "--out", out_dir, "-q"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"advisor diff timed out after {timeout} s"
    path = os.path.join(out_dir, "diff.json")
    if done.returncode != 0 or not os.path.exists(path):
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        return None, f"advisor diff exited {done.returncode}: {tail[0]}"
    with open(path, encoding="utf-8") as f:
        return json.load(f), ""


def on_planted_path(path, planted):
    """The planted instance itself, or one of its ancestors."""
    return path == planted or planted.startswith(path + ".")


def judge_diff(diff, planted):
    """(right, why) of one pair's diff.json."""
    problems = []
    step = diff["step"]
    if step["verdict"] != "faster":
        problems.append(f"verdict {step['verdict']} ({step['why']})")
    for key, what in (("modules_explained_share", "by instance"), ("ops_explained_share",
                                                                     "by op")):
        if diff[key] < EXPLAINED_AT_LEAST:
            problems.append(f"{what} {diff[key]:.1%} < {EXPLAINED_AT_LEAST:.0%}")
    leading = diff["modules"][0] if diff["modules"] else None
    if leading is None:
        problems.append("no module compared")
    elif leading["own_time"] or not on_planted_path(leading["path"], planted):
        own = " (own time)" if leading["own_time"] else ""
        problems.append(f"leads: {leading['path']}{own}, not on {planted}")
    return not problems, "; ".join(problems)


def describe(diff):
    """The table's cells of one diff."""
    step = diff["step"]
    leading = diff["modules"][0] if diff["modules"] else {"path": "-", "delta_ms": 0}
    instances = sum(m["delta_ms"] for m in diff["modules"])
    return {"instances_alone": round(instances / step["delta_ms"], 4) if step["delta_ms"] else 1,
            "step_before_ms": round(step["before_ms"], 2),
            "step_after_ms": round(step["after_ms"], 2), "verdict": step["verdict"],
            "by_instance": round(diff["modules_explained_share"], 4),
            "by_op": round(diff["ops_explained_share"], 4), "leading": leading["path"],
            "leading_delta_ms": round(leading["delta_ms"], 2),
            "leading_op": diff["ops"][0]["name"] if diff["ops"] else "-"}


def run_pair(args, workdir, name, planted):
    """Bisects both sides and diffs them, up to --attempts times until the diff is right."""
    advisor = os.path.abspath(args.advisor)
    wrong_tries = []
    for attempt in range(1, args.attempts + 1):
        sides, error, seconds = [], "", 0.0
        for fixed, label in ((False, "before"), (True, "after")):
            out_dir = os.path.join(workdir, f"{name}-{label}")
            report, error, took = zoo.run_advisor(
                advisor, os.path.join(workdir, zoo.archive_name(name, fixed)), out_dir, "cpu",
                args.timeout, autotest=False, steps=args.steps)
            seconds += took
            if report is None:
                break
            sides.append(out_dir)
        result = {"case": name, "planted": planted}
        if not error:
            diff, error = run_diff(advisor, *sides, os.path.join(workdir, f"{name}-diff"),
                                   args.timeout)
        if error:
            result.update(right=False, why=error)
        else:
            right, why = judge_diff(diff, planted)
            result.update(describe(diff), right=right, why=why)
        result["process_s"] = round(seconds, 2)
        print(f"diff_pairs: {name}, try {attempt}: {'right' if result['right'] else 'wrong'} "
              f"{result['why']}".rstrip(), file=sys.stderr)
        if result["right"] or attempt == args.attempts:
            break
        wrong_tries.append(result["why"])
    result.update(attempts=attempt, wrong_tries=wrong_tries)
    return result


def print_table(rows):
    headers = ("pair", "step ms", "verdict", "by instance", "instances", "by op", "leading module",
               "result")
    cells = []
    for r in rows:
        if "verdict" not in r:
            cells.append((r["case"], "", "", "", "", "", "", "wrong"))
            continue
        result = "right" if r["right"] else "wrong"
        if r["right"] and r["wrong_tries"]:
            result += f" (try {r['attempts']})"
        cells.append((r["case"], f"{r['step_before_ms']:.2f} -> {r['step_after_ms']:.2f}",
                      r["verdict"], f"{r['by_instance']:.1%}", f"{r['instances_alone']:.1%}",
                      f"{r['by_op']:.1%}",
                      f"{r['leading']} {r['leading_delta_ms']:+.2f} ms", result))
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
    for line in [headers] + cells:
        print("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help="pairs to run (default: every case with a fixed variant)")
    parser.add_argument("--advisor", default=os.path.join(HERE, "..", "..", "build", "advisor"))
    parser.add_argument("--python", help="Python with torch for the exporters")
    parser.add_argument("--workdir", help="keep archives, reports and diffs here")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per advisor run")
    parser.add_argument("--steps", type=int, default=10,
                        help="advisor bisect's --steps: steps per window (default 10)")
    parser.add_argument("--attempts", type=int, default=1,
                        help="runs per pair at most, while its diff is wrong (default 1)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    if args.attempts < 1 or args.steps < 1:
        parser.error("--attempts and --steps must be at least 1")

    cases = zoo.judge.load_cases(os.path.join(HERE, "cases"))
    known = pairs(cases)
    unknown = sorted(set(args.cases) - set(known))
    if unknown:
        parser.error(f"not a pair: {', '.join(unknown)}; the pairs: {', '.join(known)}")
    selected = args.cases or known

    workdir = args.workdir or tempfile.mkdtemp(prefix="advisor-diff-pairs-")
    os.makedirs(workdir, exist_ok=True)
    try:
        python = zoo.torch_python(args.python)
        errors = {}
        for fixed in (False, True):
            for name, error in zoo.export(python, workdir, "cpu", selected, False, fixed).items():
                if error:
                    errors[name] = error
        rows = [{"case": n, "planted": cases[n]["cpu"]["path"], "right": False,
                 "why": "export: " + errors[n], "attempts": 0, "wrong_tries": []}
                if n in errors else run_pair(args, workdir, n, cases[n]["cpu"]["path"])
                for n in selected]
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)

    print_table(rows)
    for r in rows:
        for why in r["wrong_tries"]:
            print(f"retried: {r['case']}: a wrong try: {why}")
        if not r["right"]:
            print(f"wrong: {r['case']}: {r['why']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"results": rows}, f, indent=1)
            f.write("\n")
    right = sum(r["right"] for r in rows)
    print(f"explained {right}/{len(rows)}")
    sys.exit(0 if right == len(rows) else 1)


if __name__ == "__main__":
    main()
