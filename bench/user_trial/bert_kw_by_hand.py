"""By-hand timing of bert_kw.py, to check advisor's verdict on it: the script itself, run as it is
(runpy), each step's wall time from one optimizer step's end to the next's (the DataLoader's fetch
included, as advisor's step includes it), and with --fixed the planted per-token loop of its
AttentionPooler replaced by the same pooling over all tokens at once (fixes.json's replacement),
for an A/B of its share.

    python bert_kw_by_hand.py [--fixed | --alternate] [--steps 120] [--skip 20]

Prints one line: planted or fixed, the median step and its quartiles in ms. --alternate swaps the
loop and its fix every 10 steps in one process, so that both see the same load, and prints each
one's median step and the loop's share, (planted - fixed) / planted.
"""

import argparse
import os
import runpy
import statistics
import time

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

from alternation import print_alternated

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bert_kw.py")


def attention_pooler_fixed(self, hidden_states):
    weights = self.score(hidden_states).softmax(dim=1)
    return torch.tanh(self.dense((weights * hidden_states).sum(dim=1)))


class Enough(Exception):
    """Raised from the optimizer's hook once the steps asked for are timed."""


def main():
    parser = argparse.ArgumentParser()
    variant = parser.add_mutually_exclusive_group()
    variant.add_argument("--fixed", action="store_true")
    variant.add_argument("--alternate", action="store_true")
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--skip", type=int, default=20)
    args = parser.parse_args()
    ends, fixed_steps, pooler = [], [], {}

    def find_pooler(module, unused_args):
        # The class is defined when the script runs: take it from its first call.
        if type(module).__name__ == "AttentionPooler":
            pooler["class"], pooler["planted"] = type(module), type(module).forward
            pooler["hook"].remove()
            choose(0)

    def choose(step):
        fixed = args.fixed or (args.alternate and step // 10 % 2 == 1)
        if "class" in pooler:
            pooler["class"].forward = attention_pooler_fixed if fixed else pooler["planted"]
        fixed_steps.append(fixed)

    def step_ended(*unused):
        ends.append(time.perf_counter())
        if len(ends) > args.skip + args.steps:
            raise Enough
        choose(len(ends))  # the variant of the step that begins now

    pooler["hook"] = torch.nn.modules.module.register_module_forward_pre_hook(find_pooler)
    register_optimizer_step_post_hook(step_ended)
    try:
        runpy.run_path(SCRIPT, run_name="__main__")
    except Enough:
        pass
    # Step i runs from end i-1 to end i under the variant chosen at end i-1.
    steps_ms = [(b - a) * 1e3 for a, b in zip(ends[args.skip:], ends[args.skip + 1:])]
    variants = fixed_steps[args.skip + 1:args.skip + 1 + len(steps_ms)]
    if args.alternate:
        print_alternated("bert_kw", steps_ms, variants)
        return
    q1, median, q3 = statistics.quantiles(steps_ms, n=4)
    print(f"bert_kw {'fixed' if args.fixed else 'planted'}: median step {median:.2f} ms "
          f"(quartiles {q1:.2f}-{q3:.2f}, {len(steps_ms)} steps)", flush=True)


if __name__ == "__main__":
    main()
