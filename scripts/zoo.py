#!/usr/bin/env python3
"""Runs advisor on the bottleneck zoo and says how often it names the planted answer.

    zoo.py [--device cpu|cuda] [--advisor PATH] [--python PATH] [--workdir DIR]
           [--reuse-exports] [--timeout S] [--attempts N] [--autotest]
           [--skip-known-misses] [--json FILE] [CASE ...]

Exports the cases (scripts/zoo/cases/, all of them by default) for the device with the Python
that has torch, runs ``advisor bisect CASE.pt --device DEVICE -q`` on each with a time limit,
judges each report against the case's expected answer (scripts/zoo/judge.py), and prints a table:
case, expected, found, right/wrong, profiled windows, advisor's wall seconds. Cases whose answer
is a known miss run too but are listed apart and not counted. The last line is
``localized K/N``; the exit status is 0 exactly when K equals N.

--attempts N (default 1) runs a case whose answer was wrong again, up to N runs in all, and
counts it right when a later run is; the table says which try was right and lists what the wrong
tries found, so a flaky answer stays visible. Accuracy figures use one attempt; CI uses three,
because a loaded 2-core machine perturbs single measurements (docs/benchmarks.md).

--workdir keeps the archives and reports there (default: a temporary folder, removed after);
--reuse-exports skips exporting a case whose archive is already in it. --json writes every
case's result for bench/zoo_gpu.sh and scripts/zoo/markdown.py. --autotest passes advisor's
--autotest on, so the JSON also holds the measured fixes.

The runner needs only the Python 3 standard library; the exporters need PyTorch (default: the
first of /usr/bin/python3 and python3 that imports torch).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ZOO = os.path.join(HERE, "zoo")
sys.path.insert(0, ZOO)
import invariants  # noqa: E402  (scripts/zoo/ is on the path only from here on)
import judge  # noqa: E402
from zoo_case import archive_name  # noqa: E402

EXPORT_TIMEOUT_PER_CASE_S = 120


def torch_python(requested):
    """The Python interpreter that runs the exporters."""
    if requested:
        return requested
    for candidate in ("/usr/bin/python3", "python3"):
        try:
            if subprocess.run([candidate, "-c", "import torch"], capture_output=True,
                              timeout=120).returncode == 0:
                return candidate
        except (OSError, subprocess.TimeoutExpired):
            continue
    raise SystemExit("zoo: no Python with torch found; pass --python")


def export(python, workdir, device, names, reuse, fixed=False):
    """Exports the cases (their fixed variants where ``fixed``); returns {name: error text} for
    those that failed ("" for the others)."""
    todo = [n for n in names
            if not (reuse and os.path.exists(os.path.join(workdir, archive_name(n, fixed))))]
    errors = {n: "" for n in names}
    if not todo:
        return errors
    print(f"zoo: exporting {len(todo)} case(s){' (fixed)' if fixed else ''} for {device} with "
          f"{python}", file=sys.stderr)
    command = [python, os.path.join(ZOO, "export.py"), workdir, "--device", device]
    command += ["--fixed"] if fixed else []
    command += todo
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=EXPORT_TIMEOUT_PER_CASE_S * len(todo))
    except subprocess.TimeoutExpired:
        return dict(errors, **{n: "export timed out" for n in todo})
    reported = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            reported[result["case"]] = result["error"]
    for name in todo:
        errors[name] = reported.get(name, "export did not report: " + done.stderr[-300:])
    return errors


def run_advisor(advisor, archive, out_dir, device, timeout, autotest, steps=None):
    """Runs one bisection (``steps`` profiled steps per window, advisor's default where None);
    returns (report or None, error text, process seconds)."""
    command = [advisor, "bisect", archive, "--out", out_dir, "--device", device, "-q"]
    if autotest:
        command.append("--autotest")
    if steps:
        command += ["--steps", str(steps)]
    shutil.rmtree(out_dir, ignore_errors=True)  # a report left by an earlier run must not count
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s", time.monotonic() - start
    except OSError as e:
        return None, f"cannot run advisor: {e}", time.monotonic() - start
    seconds = time.monotonic() - start
    report_path = os.path.join(out_dir, "report.json")
    if done.returncode != 0 or not os.path.exists(report_path):
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        return None, f"advisor exited {done.returncode}: {tail[0]}", seconds
    with open(report_path, encoding="utf-8") as f:
        return json.load(f), "", seconds


def evaluate(name, answer, report, error, seconds):
    """One case's result, as printed and as written to --json."""
    result = {"case": name, "expected": judge.describe_answer(answer),
              "known_miss": answer.get("known_miss", ""), "process_s": round(seconds, 2)}
    if report is None:
        result.update(found=error, right=False, why=error, windows=None, wall_s=None)
        return result
    right, why = judge.judge(answer, report)
    broken = invariants.violations(report)
    if broken:  # a report whose numbers contradict each other is wrong, whatever it names
        right, why = False, "report invariant: " + "; ".join(broken)
    result.update(found=judge.describe_report(report), right=right, why=why,
                  windows=report["run"]["windows"], wall_s=round(report["run"]["wall_s"], 2),
                  device_name=report["run"]["device_name"],
                  torch_version=report["run"]["torch_version"],
                  advisor_version=report["run"]["advisor_version"],
                  step_ms=report["step"]["median_ms"], hotspot=report.get("hotspot"),
                  findings=[{k: f[k] for k in ("rule", "severity", "path", "op", "recipe")}
                            for f in report.get("findings", [])],
                  fixes=report.get("fixes", []),
                  levels=[{k: level[k] for k in ("depth", "parent", "chosen", "reason")}
                          for level in report["bisection"]["levels"]])
    return result


def run_case(args, workdir, name, answer, export_error):
    """Runs advisor on one case, up to --attempts times until it is right; returns its result
    with ``attempts`` (runs made) and ``wrong_tries`` (what the wrong runs before it found)."""
    wrong_tries = []
    for attempt in range(1, args.attempts + 1):
        report, error, seconds = None, export_error, 0.0
        if not error:
            report, error, seconds = run_advisor(
                os.path.abspath(args.advisor), os.path.join(workdir, archive_name(name)),
                os.path.join(workdir, name + "-report"), args.device, args.timeout, args.autotest)
        result = evaluate(name, answer, report, error, seconds)
        print(f"zoo: {name}, try {attempt}: {'right' if result['right'] else 'wrong'} "
              f"{result['why']}".rstrip(), file=sys.stderr)
        if result["right"] or export_error or attempt == args.attempts:
            break
        wrong_tries.append({k: result.get(k) for k in ("found", "why", "levels")})
    result.update(attempts=attempt, wrong_tries=wrong_tries)
    return result


def verdict(row):
    """'right', 'wrong', 'right (try 2)', with ' (known miss)' where it is one."""
    text = "right" if row["right"] else "wrong"
    if row["right"] and row["wrong_tries"]:
        text += f" (try {row['attempts']})"
    return text + (" (known miss)" if row["known_miss"] else "")


def print_table(rows):
    headers = ("case", "expected", "found", "result", "windows", "wall s")
    cells = [(r["case"], r["expected"], r["found"], verdict(r),
              "" if r["windows"] is None else str(r["windows"]),
              "" if r["wall_s"] is None else f"{r['wall_s']:.1f}") for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
    for line in [headers] + cells:
        print("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help="cases to run (default: all)")
    parser.add_argument("--device", choices=judge.DEVICES, default="cpu")
    parser.add_argument("--advisor", default=os.path.join(HERE, "..", "build", "advisor"))
    parser.add_argument("--python", help="Python with torch for the exporters")
    parser.add_argument("--workdir", help="keep archives and reports here")
    parser.add_argument("--reuse-exports", action="store_true",
                        help="do not re-export a case whose archive is in --workdir")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per advisor run")
    parser.add_argument("--attempts", type=int, default=1,
                        help="runs per case at most, while its answer is wrong (default 1)")
    parser.add_argument("--autotest", action="store_true", help="run advisor with --autotest")
    parser.add_argument("--skip-known-misses", action="store_true",
                        help="leave out the cases whose answer is a known miss (CI)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    if args.attempts < 1:
        parser.error("--attempts must be at least 1")

    cases = judge.load_cases(os.path.join(ZOO, "cases"))
    unknown = sorted(set(args.cases) - set(cases))
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(cases)}")
    answers = {n: cases[n][args.device] for n in (args.cases or cases)}
    skipped = sorted(n for n, a in answers.items() if "skip" in a)
    selected = [n for n, a in answers.items() if "skip" not in a
                and not (args.skip_known_misses and a.get("known_miss"))]

    workdir = args.workdir or tempfile.mkdtemp(prefix="advisor-zoo-")
    os.makedirs(workdir, exist_ok=True)
    try:
        export_errors = export(torch_python(args.python), workdir, args.device, selected,
                               args.reuse_exports)
        rows = [run_case(args, workdir, name, answers[name], export_errors[name])
                for name in selected]
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)

    counted = [r for r in rows if not r["known_miss"]]
    misses = [r for r in rows if r["known_miss"]]
    if counted:
        print_table(counted)
    for r in counted:
        for tried in r["wrong_tries"]:
            print(f"retried: {r['case']}: a wrong try found {tried['found']} ({tried['why']})")
        if not r["right"]:
            print(f"wrong: {r['case']}: {r['why']}")
    if misses:
        print(f"\nknown misses (not counted): {len(misses)}")
        print_table(misses)
        for r in misses:
            print(f"  {r['case']}: {r['known_miss']}")
    if skipped:
        print(f"\nnot on {args.device}: {', '.join(skipped)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"device": args.device, "autotest": args.autotest, "results": rows,
                       "skipped": skipped}, f, indent=1)
            f.write("\n")
    right = sum(r["right"] for r in counted)
    print(f"localized {right}/{len(counted)}")
    sys.exit(0 if right == len(counted) else 1)


if __name__ == "__main__":
    main()
