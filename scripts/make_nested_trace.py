#!/usr/bin/env python3
"""Writes a torch.profiler trace of one step whose module ranges nest deep or spread wide: the
shapes behind issue #34's M2 (a path spelt whole per nested range cost O(depth^2)), for
docs/benchmarks.md and by hand.

    make_nested_trace.py OUT.json --depth N [--name-bytes B] [--ops K]
    make_nested_trace.py OUT.json --wide N

--depth: N `nn.Module: M<i>_xxx` ranges, each inside the one before, every name padded with x to
B bytes (default 8), and K aten::add ops inside the innermost. --wide: N sibling ranges, one
aten::add in each. advisor refuses nesting deeper than 128 levels (docs/security.md).
"""

import argparse
import json


def event(name, category, start, duration):
    return {"ph": "X", "cat": category, "name": name, "pid": 1, "tid": 1, "ts": start,
            "dur": duration}


def nested(depth, name_bytes, ops):
    span = 2 * depth + 2 * ops + 10
    events = [event("ProfilerStep#1", "user_annotation", 0, span + 10)]
    for i in range(depth):
        name = ("M%d_" % i).ljust(name_bytes, "x")
        events.append(event("nn.Module: " + name, "python_function", 1 + i, span - 2 * i))
    for j in range(ops):
        events.append(event("aten::add", "cpu_op", depth + 2 + 2 * j, 1))
    return events


def wide(count):
    events = [event("ProfilerStep#1", "user_annotation", 0, 4 * count + 10)]
    for i in range(count):
        events.append(event("nn.Module: M%d" % i, "python_function", 1 + 4 * i, 3))
        events.append(event("aten::add", "cpu_op", 2 + 4 * i, 1))
    return events


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    shape = parser.add_mutually_exclusive_group(required=True)
    shape.add_argument("--depth", type=int)
    shape.add_argument("--wide", type=int)
    parser.add_argument("--name-bytes", type=int, default=8)
    parser.add_argument("--ops", type=int, default=0)
    args = parser.parse_args()
    events = (nested(args.depth, args.name_bytes, args.ops) if args.depth is not None
              else wide(args.wide))
    with open(args.out, "w") as out:
        json.dump({"traceEvents": events}, out)


if __name__ == "__main__":
    main()
