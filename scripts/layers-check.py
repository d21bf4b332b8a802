#!/usr/bin/env python3
"""The layer check (CI, scripts/test.sh): no upward arrow in the include graph of engine/.

Each folder of engine/ is one library at one layer; a file may include headers of its own folder
and of folders on lower layers only. The report's model once lived in engine/report and included
engine/rules/finding.h, an arrow from the writers' folder back down into the rules', and 12 of 19
folders included it: the layers below say where a new folder goes before its first include
decides it. docs/architecture.md#layers draws them.

    /usr/bin/python3 scripts/layers-check.py     # exit 1 naming each include that points up
"""

import pathlib
import re
import sys

# Lowest first. A folder on layer N may include folders on layers 0..N-1.
LAYERS = [
    ["util"],  # opening untrusted files (input_file.h) is shared by the readers of layer 1
    ["json_input", "pickle_input", "model", "timeline", "archive", "object_store"],
    ["analysis", "workload", "trace_import", "facts", "memory_snapshot"],
    ["gpu"],
    ["window"],
    ["bisect", "report", "trace_analysis", "autotest", "rules"],
    ["multi_rank", "diff"],
    ["script", "torch"],
    ["model_candidate"],
    ["cli"],
]
LAYER = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^\s*#\s*include\s+"engine/([a-z_0-9]+)/')


def main():
    root = pathlib.Path(__file__).resolve().parent.parent / "engine"
    problems = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".h", ".cpp") or not path.is_file():
            continue
        folder = path.relative_to(root).parts[0]
        if folder not in LAYER:
            problems.append("%s: engine/%s is on no layer: add it to LAYERS in %s" % (
                path.relative_to(root.parent), folder, pathlib.Path(__file__).name))
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or match.group(1) == folder:
                continue
            target = match.group(1)
            if LAYER.get(target, len(LAYERS)) >= LAYER[folder]:
                problems.append("%s:%d: engine/%s (layer %d) includes engine/%s (layer %s)" % (
                    path.relative_to(root.parent), number, folder, LAYER[folder], target,
                    LAYER.get(target, "none")))
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("layers-check.py: FAILED: an include points up a layer (docs/architecture.md#layers)",
              file=sys.stderr)
        return 1
    print("layers-check.py: %d folders on %d layers, no include points up" % (len(LAYER),
                                                                             len(LAYERS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
