"""By-hand timing of lightning_docs.py and hf_trainer_docs.py, to check advisor's verdicts on
them: each step's wall time from one step's start to the next's (a trainer callback: data wait,
logging and progress bar included, as advisor's step includes them), and with --fixed the planted
loop replaced by its vectorised form, for an A/B of its share.

    python docs_by_hand.py lightning|hf [--fixed | --alternate] [--workers N] [--steps 300]
                                        [--skip 30] [--accelerator gpu]

Prints one line: the script, planted or fixed, the median step and its quartiles in ms, and the
median gap from an optimizer step's end to the model's next forward (advisor's data phase) with
the part of it spent in the DataLoader iterator's __next__. --workers sets lightning_docs.py's
DataLoader workers (2 in the script). --alternate swaps the planted loop and its fix every 10
steps in one process, so that both see the same load, and prints each one's median step and the
planted loop's share, (planted - fixed) / planted. --accelerator is lightning_docs.py's (cpu).
"""

import argparse
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.optim.optimizer import register_optimizer_step_post_hook
from torch.utils.data import dataloader

from alternation import print_alternated


def rolling_stats_fixed(self, x):
    window = self.window
    mean = F.avg_pool1d(x, window, 1)
    variance = (F.avg_pool1d(x * x, window, 1) - mean * mean) * (window / (window - 1))
    return torch.cat([mean, variance.clamp_min(0).sqrt()], dim=1)


def mean_max_pool_fixed(self, hidden, attention_mask):
    mask = attention_mask.to(hidden.dtype).unsqueeze(-1)
    peak = hidden.masked_fill(mask == 0, float("-inf")).amax(1)
    return torch.cat([(hidden * mask).sum(1) / mask.sum(1), peak], dim=-1)


class Gaps:
    """From each optimizer step's end to the next outermost forward call: advisor's data phase."""

    def __init__(self):
        self.ms, self.stepped_at, self.depth = [], None, 0

    def optimizer_stepped(self, *unused):
        self.stepped_at = time.perf_counter()

    def forward_begins(self, *unused):
        if self.stepped_at is not None:
            self.ms.append((time.perf_counter() - self.stepped_at) * 1e3)
            self.stepped_at = None


def timed(next_batch, fetches):
    def __next__(self):
        begun = time.perf_counter()
        try:
            return next_batch(self)
        finally:
            fetches.append((time.perf_counter() - begun) * 1e3)
    return __next__


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("script", choices=["lightning", "hf"])
    variant = parser.add_mutually_exclusive_group()
    variant.add_argument("--fixed", action="store_true")
    variant.add_argument("--alternate", action="store_true")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--skip", type=int, default=30)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--accelerator", default="cpu")
    args = parser.parse_args()
    starts, fixed_steps = [], []
    gaps, fetches = Gaps(), []
    register_optimizer_step_post_hook(gaps.optimizer_stepped)
    torch.nn.modules.module.register_module_forward_pre_hook(gaps.forward_begins)
    for iterator in (dataloader._SingleProcessDataLoaderIter,
                     dataloader._MultiProcessingDataLoaderIter):
        iterator.__next__ = timed(iterator.__next__, fetches)
    sys.argv = [sys.argv[0], "--max_steps", str(args.steps)]
    if args.script == "lightning":
        import lightning_docs as script

        sys.argv += ["--accelerator", args.accelerator]
        planted_class, fix = script.RollingStats, rolling_stats_fixed

        class StepClock(script.L.Callback):
            def on_train_batch_start(self, *unused):
                starts.append(time.perf_counter())
                alternate(len(starts))

        if args.workers is not None:
            script.SensorDataModule.__init__.__defaults__ = (32, args.workers)
    else:
        import hf_trainer_docs as script
        from transformers import TrainerCallback

        planted_class, fix = script.MeanMaxPool, mean_max_pool_fixed

        class StepClock(TrainerCallback):
            def on_step_begin(self, *unused, **also_unused):
                starts.append(time.perf_counter())
                alternate(len(starts))

    planted = planted_class.forward

    def alternate(step):
        fixed = args.fixed or (args.alternate and step // 10 % 2 == 1)
        planted_class.forward = fix if fixed else planted
        fixed_steps.append(fixed)

    script.main((StepClock(),))
    steps_ms = [(b - a) * 1e3 for a, b in zip(starts[args.skip:], starts[args.skip + 1:])]
    if args.alternate:
        print_alternated(args.script, steps_ms, fixed_steps[args.skip:])
        return
    q1, median, q3 = statistics.quantiles(steps_ms, n=4)
    gap_ms = statistics.median(gaps.ms[args.skip:])
    fetch_ms = statistics.median(fetches[args.skip:])
    workers = "" if args.workers is None else f", {args.workers} workers"
    print(f"{args.script} {'fixed' if args.fixed else 'planted'}{workers}: median step "
          f"{median:.2f} ms (quartiles {q1:.2f}-{q3:.2f}, {len(steps_ms)} steps); optimizer end "
          f"to next forward {gap_ms:.2f} ms, of which __next__ {fetch_ms:.2f} ms", flush=True)


if __name__ == "__main__":
    main()
