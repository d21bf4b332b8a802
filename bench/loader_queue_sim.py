#!/usr/bin/env python3
"""What a block of steps times after a switch from slower steps, where a DataLoader's workers feed
them: a simulation of the loader's queue (docs/recipes.md, "Measured inside the running script").

    loader_queue_sim.py [--workers 6] [--batch-ms 190] [--prefetch 2] [--slow-ms 169]
                        [--fast-ms 20] [--steps 5]

The loader as torch's multiprocessing iterator runs it: workers x prefetch batches requested at
the start, each new request sent as a batch is taken, to the workers in turn; a worker makes its
batches one after another, --batch-ms each; batches are handed out in order. A long run of
--slow-ms steps fills the queue; then --fast-ms steps begin. Prints the fast steps' mean over
--steps timed steps after 2 settle steps (the blocks' design before the drain), after 2 + the
queue's (the drain), and in a long run, and the first fast step that waited for its batch.
"""

import argparse


def fast_steps(workers, batch_ms, prefetch, slow_ms, fast_ms, slow_steps=60, fast_count=300):
    """Each fast step's time (its wait for its batch included), after `slow_steps` slow ones."""
    queue = workers * prefetch
    free_at = [0.0] * workers  # when each worker has made its last batch
    ready_at = {}

    def request(index, now):
        worker = index % workers
        start = max(free_at[worker], now)
        free_at[worker] = ready_at[index] = start + batch_ms

    for index in range(queue):
        request(index, 0.0)
    now, steps = 0.0, []
    for index in range(slow_steps + fast_count):
        taken = max(now, ready_at[index])
        request(index + queue, taken)
        compute = slow_ms if index < slow_steps else fast_ms
        steps.append((taken - now + compute, taken - now))
        now = taken + compute
    return steps[slow_steps:], queue


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--batch-ms", type=float, default=190.0)
    parser.add_argument("--prefetch", type=int, default=2)
    parser.add_argument("--slow-ms", type=float, default=169.0)
    parser.add_argument("--fast-ms", type=float, default=20.0)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    if args.workers < 1 or args.prefetch < 1 or args.steps < 1:
        raise SystemExit("loader_queue_sim.py: --workers, --prefetch and --steps must be 1 or more")
    steps, queue = fast_steps(args.workers, args.batch_ms, args.prefetch, args.slow_ms,
                              args.fast_ms)

    def timed_mean(settle):
        timed = steps[settle:settle + args.steps]
        return sum(ms for ms, _ in timed) / len(timed)

    long_run = steps[-120:]  # whole rounds of the workers (2, 3, 4, 5, 6, 8 of them)
    waited = next((i for i, (_, wait) in enumerate(steps) if wait > 0), None)
    print("queue %d batches; the fast steps' mean: %.1f ms after 2 settle steps, %.1f ms after "
          "%d, %.1f ms in a long run; the first to wait: %s"
          % (queue, timed_mean(2), timed_mean(2 + queue), 2 + queue,
             sum(ms for ms, _ in long_run) / len(long_run),
             "none" if waited is None else "step %d after the switch" % (waited + 1)))


if __name__ == "__main__":
    main()
