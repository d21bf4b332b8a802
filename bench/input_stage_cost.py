"""What measuring the input pipeline costs where it runs (docs/script-mode.md, "Inside the input
pipeline"): the seed's pipeline (tests/script_runs/pipeline_train.py) fetched batch by batch the
way a DataLoader worker fetches them, in four conditions interleaved round by round:

  plain      no probe
  idle       the probe installed, its flag off (every batch outside advisor's window)
  timed      flag on, no line tracing (transforms, items and collate timed)
  traced     flag on, one item in 4 line-traced with no cap (the cap of 16 per worker and window
             keeps a real window cheaper than this)

    /usr/bin/python3 bench/input_stage_cost.py [--rounds 5] [--batches 20] [--batch 8]

Prints the median ms per batch of each condition and the median ratio of each batch to the same
batch (same items, same random radii) without the probe. One thread for torch, as
in a DataLoader worker.
"""

import argparse
import mmap
import os
import random
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "script"))
sys.path.insert(0, os.path.join(HERE, "..", "probes", "python", "site"))

import pipeline_train  # noqa: E402
from advisor_probe import stage_worker  # noqa: E402
from torch.utils.data._utils.fetch import _MapDatasetFetcher  # noqa: E402
from torch.utils.data._utils.collate import default_collate  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    torch.set_num_threads(1)

    dataset = pipeline_train.Scenes(1 << 20, pipeline_train.Compose(
        [pipeline_train.RandomDilation(max_radius=12), pipeline_train.RandomCrop(224)]))
    flag = mmap.mmap(-1, stage_worker.FLAG_BYTES)
    records = []
    pipeline = stage_worker.Pipeline(dataset, flag, records.append, 1)
    def run(condition, round_):
        # The same items and radii in every condition of a round.
        random.seed(round_)
        stage_worker.SAMPLE_EVERY = 4 if condition == "traced" else 1 << 30
        stage_worker.SAMPLES = 1 << 30
        flag[0] = condition in ("timed", "traced")
        remove = pipeline.install() if condition != "plain" else None
        fetcher = _MapDatasetFetcher(dataset, True, default_collate, False)
        times = []
        try:
            for b in range(args.batches):
                start = (round_ * args.batches + b) * args.batch
                began = time.perf_counter()
                fetcher.fetch(list(range(start, start + args.batch)))
                times.append((time.perf_counter() - began) * 1e3)
        finally:
            if remove is not None:
                remove()
        return times

    conditions = ["plain", "idle", "timed", "traced"]
    results = {condition: [] for condition in conditions}
    run("plain", args.rounds)  # warm-up
    for round_ in range(args.rounds):
        for condition in conditions:
            results[condition] += run(condition, round_)
    # Each batch against the same batch (same items, same radii) without the probe.
    for condition in conditions:
        ratios = [t / p for t, p in zip(results[condition], results["plain"])]
        print("%-7s %8.2f ms/batch  %.3fx the same batch without the probe (median of %d)"
              % (condition, statistics.median(results[condition]), statistics.median(ratios),
                 len(ratios)))
    print("machine: %d cores usable, load average %.2f" % (len(os.sched_getaffinity(0)),
                                                          os.getloadavg()[0]))


if __name__ == "__main__":
    main()
