"""What the by-hand oracles here print of a run that swapped a planted cost and its fix every few
steps in one process (docs_by_hand.py and bert_kw_by_hand.py with --alternate), so that both
variants see the same load."""

import statistics


def print_alternated(name, steps_ms, fixed_steps):
    """Each variant's median step and the planted cost's share of the step, (planted - fixed) /
    planted; `fixed_steps[i]` says whether step i ran the fix."""
    runs = {False: [], True: []}
    for ms, fixed in zip(steps_ms, fixed_steps):
        runs[fixed].append(ms)
    planted_ms, fixed_ms = (statistics.median(runs[fixed]) for fixed in (False, True))
    print(f"{name} alternated: planted {planted_ms:.2f} ms ({len(runs[False])} steps), "
          f"fixed {fixed_ms:.2f} ms ({len(runs[True])} steps): the loop is "
          f"{100 * (planted_ms - fixed_ms) / planted_ms:.1f}% of the step", flush=True)
