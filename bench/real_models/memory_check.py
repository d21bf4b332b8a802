#!/usr/bin/env python3
"""The GPU check's memory stage (scripts/gpu-check.sh memory): what advisor says about the memory
of a GPT-2 trained with eager attention (train.py), beside what torch's CUDA counters say by hand,
judged in one compact table.

    python3 bench/real_models/memory_check.py --advisor build-gpu/advisor --out DIR \\
        [--family gpt2] [--budget 2m] [--json FILE]

By hand, in this process (CUDA only), on one batch kept on the GPU after two warm-up steps:
  - the eager model's training step: torch.cuda.max_memory_allocated;
  - each attention instance's memory kept for backward: torch.cuda.memory_allocated after its
    forward less before it, in that step, less its outputs that no op inside it saved for
    backward (the residual add after an attention saves none: they are freed before backward);
  - the same step with attn_implementation="sdpa": its peak, and the saving against eager.
advisor, on the same script unchanged: `advisor bisect --autotest` (report.json's memory.peak.mb,
memory.modules, the materialised-attention finding's expected_saving_mb, and the hf-sdpa-attention
fix: its status and its peak beside the baseline's); then the script under a memory limit below
the eager peak (torch.cuda.set_per_process_memory_fraction, train.py --memory-fraction), bisected:
the out-of-memory report names where it ran out, a fix it names that train.py can switch on
by hand (the first that trains, in the findings' order) must train under the same limit, and
advisor's --autotest, which runs each fix alone there (no baseline fits), must record one that
fits, its peak under the limit.

Prints the table (Markdown) and writes the compact JSON (--json); the report folders stay under
--out. On a machine without CUDA the by-hand rows and the out-of-memory check are "not measured"
and the advisor side still runs (`--family gpt2-tiny --device cpu`: the stage's own test).
"""

import argparse
import functools
import json
import os
import subprocess
import sys

import torch

from families import FAMILIES
from oracle import batch_on

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 2.0**20
PEAK_TOLERANCE = 0.01
KEPT_TOLERANCE = 0.05
SAVING_TOLERANCE = 0.15
OOM_FIX_STEPS = 8


def tensors_in(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from tensors_in(item)


class KeptForBackward:
    """Each attention instance's forward allocations live at its end, less its outputs that no op
    inside it saved for backward, in the steps while `on`."""

    def __init__(self, model, device):
        self.mb = {}
        self.on = False
        self._device = device
        self._open = {}
        for path, module in model.named_modules():
            if _is_attention(module):
                module.register_forward_pre_hook(functools.partial(self._enter, path))
                module.register_forward_hook(functools.partial(self._exit, path))

    def _enter(self, path, module, args):
        if not self.on:
            return
        saved = set()

        def pack(tensor):
            saved.add(tensor.untyped_storage().data_ptr())
            return tensor

        hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor)
        hooks.__enter__()
        self._open[path] = (torch.cuda.memory_allocated(self._device), saved, hooks)

    def _exit(self, path, module, args, output):
        if path not in self._open:
            return
        before, saved, hooks = self._open.pop(path)
        hooks.__exit__(None, None, None)
        freed = {}
        for tensor in tensors_in(output):
            storage = tensor.untyped_storage()
            if storage.data_ptr() not in saved:
                freed[storage.data_ptr()] = storage.nbytes()
        kept = torch.cuda.memory_allocated(self._device) - before - sum(freed.values())
        self.mb[path] = kept / MB


def _is_attention(module):
    """A transformers attention layer (GPT2Attention, LlamaAttention), not a container of one."""
    def named(m):
        return type(m).__name__.endswith("Attention")
    return named(module) and not any(named(child) for child in module.modules() if child is not module)


def by_hand(family, attention, device):
    """The peak of one training step after two warm-up steps, and with eager attention each
    instance's memory kept for backward."""
    torch.manual_seed(0)
    model = family.build(attention=attention).to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    batch = batch_on(family, device)
    kept = KeptForBackward(model, device)
    for step in range(3):
        if step == 2:
            torch.cuda.synchronize(device)
            torch.cuda.reset_peak_memory_stats(device)
            kept.on = True
        family.loss(model, batch).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        kept.on = False
    torch.cuda.synchronize(device)
    result = {"peak_mb": torch.cuda.max_memory_allocated(device) / MB, "kept_mb": kept.mb}
    del model, optimizer, batch
    torch.cuda.empty_cache()
    return result


def run_advisor(args, name, script_args, autotest):
    """`advisor bisect` of train.py into --out/name; the report (None where there is none) and
    advisor's exit status."""
    out = os.path.join(args.out, name)
    command = [args.advisor, "bisect", "-q", "--out", out]
    if autotest:
        command += ["--autotest", "--autotest-budget", args.budget]
    command += ["--", args.python, os.path.join(HERE, "train.py"), "--family", args.family,
                "--device", args.device, "--workers", str(args.workers)] + script_args
    status = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    report_path = os.path.join(out, "report.json")
    if not os.path.exists(report_path):
        sys.stderr.write("advisor (%s) wrote no report, exit %d:\n%s\n"
                         % (name, status.returncode, status.stderr[-3000:]))
        return None, status.returncode
    with open(report_path) as report:
        return json.load(report), status.returncode


def within(measured, truth, tolerance):
    if measured is None or truth is None or truth == 0:
        return None
    return abs(measured - truth) / abs(truth) <= tolerance


def row(what, advisor, hand, tolerance, passed, note=""):
    return {"check": what, "advisor": advisor, "by_hand": hand, "tolerance": tolerance,
            "pass": passed, "note": note}


def judge_report(report, eager, sdpa):
    """The rows of the bisection with --autotest beside the by-hand numbers (None: no CUDA)."""
    memory = report.get("memory") or {}
    peak = (memory.get("peak") or {}).get("mb")
    hand_peak = eager["peak_mb"] if eager else None
    rows = [row("peak MB: memory.peak.mb / max_memory_allocated", peak, hand_peak,
                PEAK_TOLERANCE, within(peak, hand_peak, PEAK_TOLERANCE))]

    compared = []
    for module in memory.get("modules", []):
        if eager and module["path"] in eager["kept_mb"] and "kept_for_backward_mb" in module:
            compared.append((module["path"], module["kept_for_backward_mb"],
                             eager["kept_mb"][module["path"]]))
    worst = max(compared, key=lambda c: abs(c[1] - c[2]) / max(abs(c[2]), 1e-9), default=None)
    rows.append(row("kept for backward MB, worst of %d attention instances" % len(compared),
                    worst[1] if worst else None, worst[2] if worst else None, KEPT_TOLERANCE,
                    all(within(a, h, KEPT_TOLERANCE) for _, a, h in compared) if compared
                    else None, worst[0] if worst else "no attention instance in memory.modules"))

    finding = next((f for f in report.get("findings", [])
                    if f.get("rule") == "materialised-attention"), {})
    measured = eager["peak_mb"] - sdpa["peak_mb"] if eager and sdpa else None
    predicted = finding.get("expected_saving_mb")
    rows.append(row("SDPA saving MB: expected_saving_mb / eager peak - SDPA peak", predicted,
                    measured, SAVING_TOLERANCE, within(predicted, measured, SAVING_TOLERANCE),
                    "recipe %s" % finding.get("recipe")))

    fix = next((f for f in report.get("fixes", []) if f.get("recipe") == "hf-sdpa-attention"), {})
    autotest_saving = None
    if fix.get("peak_memory_mb") is not None and fix.get("baseline_peak_memory_mb") is not None:
        autotest_saving = fix["baseline_peak_memory_mb"] - fix["peak_memory_mb"]
    rows.append(row("SDPA saving MB in --autotest: baseline_peak_memory_mb - peak_memory_mb",
                    autotest_saving, measured, SAVING_TOLERANCE,
                    within(autotest_saving, measured, SAVING_TOLERANCE)))
    rows.append(row("hf-sdpa-attention fix", fix.get("status"), "verified", None,
                    fix.get("status") == "verified" if fix else None,
                    "%sx; %s" % (fix.get("speedup"), (fix.get("detail") or "")[:120])))
    return rows


def _kind(path):
    """An instance's path with its blocks' indices as N: transformer.h.N.attn, alike in each."""
    return ".".join("N" if part.isdigit() else part for part in path.split("."))


def holder_row(live, kept_mb):
    """The instance the out-of-memory report names as keeping the most for backward, against the
    kind of instance keeping the most by hand in a step that fits (the eager attention's): the
    same kind, one inside the other (the report's blocks other than the failing one hold alike)."""
    holder = live.get("path")
    hand = max(kept_mb, key=kept_mb.get) if kept_mb else None
    passed = None
    if holder and hand:
        ours, theirs = _kind(holder), _kind(hand)
        passed = ours == theirs or ours.startswith(theirs + ".") or theirs.startswith(ours + ".")
    return row("out of memory: the report names the instance keeping the most for backward",
               holder or "none named", hand or "not measured", None, passed,
               "as much in %d more" % len(live.get("tied_with", [])))


def out_of_memory_rows(args, eager):
    """The script under a limit of 85 % of the eager peak: the report of its out-of-memory error,
    and the fixes it names that train.py switches on by hand, trained under the same limit."""
    total = torch.cuda.get_device_properties(torch.device(args.device)).total_memory / MB
    fraction = 0.85 * eager["peak_mb"] / total
    limit = ["--memory-fraction", "%.6f" % fraction]
    report, status = run_advisor(args, "oom", limit, autotest=True)
    oom = (report or {}).get("out_of_memory") or {}
    where = "%s in the %s" % (oom.get("path") or "(no instance)", oom.get("phase") or "?")
    rows = [row("out of memory at %.0f MB: the report names where" % (0.85 * eager["peak_mb"]),
                where if oom else "no out-of-memory report (exit %d)" % status, "", None,
                bool(oom.get("path")))]  # the holder: an instance, not just a phase
    rows.append(holder_row(oom.get("live") or {}, eager["kept_mb"]))
    # What train.py --fix switches on (activation-checkpointing: every block, a superset of the
    # instances a finding names).
    runnable = ["bf16-autocast", "hf-sdpa-attention", "activation-checkpointing"]
    fixes = [f["recipe"] for f in (report or {}).get("findings", [])
             if f.get("recipe") in runnable]
    tried, ran = [], None
    for fix in dict.fromkeys(fixes):  # the findings' order, each recipe once
        command = [args.python, os.path.join(HERE, "train.py"), "--family", args.family,
                   "--device", args.device, "--workers", "0", "--steps", str(OOM_FIX_STEPS),
                   "--fix", fix] + limit
        ran = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True).returncode == 0
        tried.append("%s %s" % (fix, "trains" if ran else "fails"))
        if ran:
            break
    offered = ", ".join(dict.fromkeys(f["recipe"] for f in (report or {}).get("findings", [])
                                      if f.get("recipe")))
    rows.append(row("a fix it names trains %d steps under the same limit" % OOM_FIX_STEPS,
                    ", ".join(tried) or "no fix train.py can switch on", "exit 0", None, ran,
                    "offered: " + (offered or "none")))
    rows.append(autotest_fit_row(report, 0.85 * eager["peak_mb"]))
    return rows


def autotest_fit_row(report, limit_mb):
    """advisor's own --autotest of the out-of-memory report: each fix its findings offer run
    alone (candidate-only runs, no baseline fits), one recorded as "fits" with its peak under the
    limit where the peak was read."""
    fixes = (report or {}).get("fixes") or []
    fitting = [f for f in fixes if f.get("status") == "fits"]

    def under_limit(fix):
        return fix.get("peak_memory_mb") is None or fix["peak_memory_mb"] <= limit_mb

    said = ", ".join("%s %s%s" % (f.get("recipe"), f.get("status"),
                                  "" if f.get("peak_memory_mb") is None
                                  else " (peak %.0f MB)" % f["peak_memory_mb"]) for f in fixes)
    return row("--autotest: a fix run alone fits under the %.0f MB limit" % limit_mb,
               said or "no fix was run (report.json's fixes is empty)",
               "a fix that fits, peak <= %.0f MB" % limit_mb, None,
               bool(fitting) and all(under_limit(f) for f in fitting),
               "fits: " + (", ".join(f.get("recipe", "?") for f in fitting) or "none"))


def table(rows):
    def cell(value):
        if value is None:
            return "not measured"
        return "%.1f" % value if isinstance(value, float) else str(value)

    lines = ["| check | advisor | by hand | tolerance | verdict | note |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        verdict = {True: "pass", False: "FAIL", None: "not judged"}[r["pass"]]
        tolerance = "%g %%" % (100 * r["tolerance"]) if r["tolerance"] else ""
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            r["check"], cell(r["advisor"]), cell(r["by_hand"]), tolerance, verdict, r["note"]))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--advisor", required=True)
    parser.add_argument("--out", required=True, help="report folders")
    parser.add_argument("--family", default="gpt2", choices=sorted(FAMILIES))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", default="2m", help="--autotest-budget")
    parser.add_argument("--json", help="the compact result")
    args = parser.parse_args()
    family = FAMILIES[args.family]
    cuda = args.device.startswith("cuda") and torch.cuda.is_available()

    eager = by_hand(family, "eager", torch.device(args.device)) if cuda else None
    sdpa = by_hand(family, "sdpa", torch.device(args.device)) if cuda else None
    report, status = run_advisor(args, "eager", [], autotest=True)
    rows = judge_report(report, eager, sdpa) if report else \
        [row("advisor bisect --autotest", "no report (exit %d)" % status, "", None, False)]
    if cuda:
        rows += out_of_memory_rows(args, eager)
    print(table(rows), flush=True)
    verdicts = [r["pass"] for r in rows if r["pass"] is not None]
    print("memory check: %d of %d judged checks pass" % (sum(verdicts), len(verdicts)))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"family": family.name, "device": args.device, "torch": torch.__version__,
                       "by_hand": {"eager": eager, "sdpa": sdpa}, "rows": rows}, out,
                      separators=(",", ":"))
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
