"""A model of one matrix product, trained; nothing in it knows about advisor. Inductor compiles
its graphs (x @ w, and w's gradient) into calls of the matrix product it already has, with no
C++ kernel to build, so that torch.compile on a CPU costs seconds.

    python compile_cache_train.py [--steps N] [--record DIR]

With --record, each process that runs with TORCHINDUCTOR_CACHE_DIR set (the autotest's runs)
writes DIR/<start ns>-<pid>.json from its third step on: that folder, the FX graph cache's entries
in it, and inductor's FX graph cache lookups in this process so far (torch's counters).
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn


class Product(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(16, 4))

    def forward(self, x):
        return x @ self.weight


def cache_state():
    folder = os.environ["TORCHINDUCTOR_CACHE_DIR"]
    entries = []
    for parent, _, files in os.walk(os.path.join(folder, "fxgraph")):
        entries += [os.path.relpath(os.path.join(parent, name), folder) for name in files]
    dynamo_utils = sys.modules.get("torch._dynamo.utils")
    inductor = dynamo_utils.counters.get("inductor", {}) if dynamo_utils else {}
    return {"folder": folder, "fxgraph": sorted(entries),
            "hits": int(inductor.get("fxgraph_cache_hit", 0)),
            "misses": int(inductor.get("fxgraph_cache_miss", 0))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--record", default="")
    args = parser.parse_args()
    record = None
    if args.record and "TORCHINDUCTOR_CACHE_DIR" in os.environ:
        record = os.path.join(args.record, "%d-%d.json" % (time.monotonic_ns(), os.getpid()))

    torch.manual_seed(0)
    model = Product()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(8, 16), torch.randn(8, 4)
    for step in range(args.steps):
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if record and step >= 2:
            with open(record + ".partial", "w") as out:
                json.dump(cache_state(), out)
            os.replace(record + ".partial", record)


if __name__ == "__main__":
    main()
