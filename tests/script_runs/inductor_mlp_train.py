"""A two-block MLP trained with torch.compile's default backend, inductor: the one script of the
suites that compiles with inductor itself (the others use aot_eager, whose graphs inductor's C++
compile would take minutes to build on the CI VM), kept to two small graphs so that its compile
stays short (two_block_mlp.py). advisor's report gives the compiled graphs' work to the four
Linear instances from the probe's kernel tables (issue #29, report.json's compiled_kernels). With
--head N a Linear of N outputs after the blocks holds most of the compiled work: the instance that
the bisection's levels, taken from those tables, are to name; --threads N sets torch's intra-op
threads.

    python inductor_mlp_train.py [--steps N] [--head N] [--threads N]
"""

import argparse

import torch

from two_block_mlp import Mlp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--head", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = torch.compile(Mlp(64, 256, head=args.head))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs = torch.randn(256, 64)
    for _ in range(args.steps):
        loss = model(inputs).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
