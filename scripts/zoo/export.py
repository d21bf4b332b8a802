#!/usr/bin/env python3
"""Exports zoo cases as advisor archives, all in one process (torch is imported once).

    export.py OUTDIR --device cpu|cuda [--fixed] CASE [CASE ...]

writes OUTDIR/CASE.pt for each case (scripts/zoo/cases/CASE.py, its ``build`` for the device's
size) and prints one JSON line per case: {"case", "ok", "seconds", "error"}. A case that fails to
export is reported and the others still are; the exit status is 1 when any failed. --fixed
exports each case's fixed variant instead (``build(size, fixed=True)``: the planted cost
removed), to OUTDIR/CASE.fixed.pt; a case without one fails to export.

Needs PyTorch 1.13 or 2.x (on the project's Debian machines: /usr/bin/python3).
"""

import argparse
import importlib
import inspect
import json
import os
import sys
import time
import traceback

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import advisor_export  # noqa: E402  (scripts/ is on the path only from here on)
from zoo_case import archive_name  # noqa: E402


def export_case(name, outdir, device, fixed):
    """Builds the case's model (or its fixed variant) at the device's size and writes it to
    OUTDIR."""
    torch.manual_seed(0)
    case = importlib.import_module(f"cases.{name}")
    if not fixed:
        model, spec = case.build(device)
    elif "fixed" in inspect.signature(case.build).parameters:
        model, spec = case.build(device, fixed=True)
    else:
        raise ValueError(f"{name} has no fixed variant (its build takes no 'fixed')")
    advisor_export.export(model, os.path.join(outdir, archive_name(name, fixed)), device=device,
                          source_model=f"scripts/zoo/cases/{name}.py", **spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--device", choices=("cpu", "cuda"), required=True)
    parser.add_argument("--fixed", action="store_true",
                        help="export each case's fixed variant, to CASE.fixed.pt")
    parser.add_argument("cases", nargs="+", metavar="CASE")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    failed = 0
    for name in args.cases:
        start = time.monotonic()
        error = ""
        try:
            export_case(name, args.outdir, args.device, args.fixed)
        except Exception as e:  # reported per case: one broken case must not hide the others
            error = f"{type(e).__name__}: {e}"
            traceback.print_exc(file=sys.stderr)
            failed += 1
        if args.device == "cuda":
            torch.cuda.empty_cache()  # a case's cached memory must not crowd the next one
        seconds = round(time.monotonic() - start, 2)
        print(json.dumps({"case": name, "ok": not error, "seconds": seconds, "error": error}),
              flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
