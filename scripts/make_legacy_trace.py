#!/usr/bin/env python3
"""Writes a large trace in the legacy list shape (torch without Kineto, such as Debian's 1.13) by
repeating the events of one recorded with it, for benchmarking `advisor analyze`.

    make_legacy_trace.py OUT.json [--megabytes M] [--from TRACE]

TRACE (default: tests/data/traces/torch-1.13-cpu/single/tiny_params_adamw-labels.json.gz, the
zoo's 96 small adapters under a per-tensor AdamW, recorded by Debian's torch 1.13 on the CPU with
record_function labels) is a bare JSON array of events without categories, as
torch.autograd.profiler's exporter writes it. Its events are written again and again, each copy
later by the recording's span and its ProfilerStep#N ranges numbered on, until the file holds M
megabytes (default 257) of JSON, one line as the exporter writes it. The text is streamed to the
file, so memory holds one copy of the recording only.
"""

import argparse
import gzip
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "tests/data/traces/torch-1.13-cpu/single/tiny_params_adamw-labels.json.gz")
STEP = re.compile(r"^ProfilerStep#(\d+)$")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--megabytes", type=float, default=257)
    parser.add_argument("--from", dest="source", default=DEFAULT)
    args = parser.parse_args()
    opener = gzip.open if args.source.endswith(".gz") else open
    with opener(args.source, "rt") as f:
        events = json.load(f)
    timed = [e for e in events if "ts" in e]
    first = min(e["ts"] for e in timed)
    span = max(e["ts"] + e.get("dur", 0) for e in timed) - first + 1000
    steps = [int(m.group(1)) for e in events if (m := STEP.match(e.get("name", "")))]
    step_count = max(steps) + 1 if steps else 0
    target = int(args.megabytes * 1e6)
    written = 0
    copies = 0
    with open(args.out, "w") as out:
        out.write("[")
        while written < target:
            shift = copies * span
            for event in events:
                copy = dict(event)
                if "ts" in copy:
                    copy["ts"] += shift
                if (m := STEP.match(copy.get("name", ""))):
                    copy["name"] = "ProfilerStep#%d" % (int(m.group(1)) + copies * step_count)
                text = ("" if written == 0 else ", ") + json.dumps(copy)
                out.write(text)
                written += len(text)
            copies += 1
        out.write("]")
    print(json.dumps({"out": args.out, "copies": copies, "events": copies * len(events),
                      "json_bytes": written + 2}))


if __name__ == "__main__":
    main()
