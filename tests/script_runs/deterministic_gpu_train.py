"""The autotest's controls on a GPU (tests/script_runs/ab_controls_test.cpp, AbControlsCuda): a
training script whose step is GPU work, a chain of fp32 matmuls, and whose deterministic
algorithms cost a planted share of it. deterministic_train.py plants its price as a sleep, which
meets a host's noise; here the step and the price are kernels, timed as the autotest times a
CUDA script's steps (the probe waits for the device at each step's end), so the estimator meets
what moves a GPU's steps: its clocks, the host's launch gaps, the waits at the step's end.

    python deterministic_gpu_train.py [--device cuda|cpu] [--steps N] [--cost-share S]
                                      [--width W] [--depth D] [--cost-size N] [--deterministic]

The model: --depth bias-free linear layers of --width, each followed by a ReLU, on a batch of
--width rows, trained with SGD on a mean squared error. 2048 and 12 (the defaults) are about 600
GFLOP a step: 10 to 20 ms on an H200 in fp32, TF32 being off by default.

The planted price: while deterministic algorithms are on, each step first runs k matmuls of
--cost-size squared, k chosen at start so that they take --cost-share (5 %) of the step's GPU
time, both measured with CUDA events; the calibration is printed ("calibration: ..."), so that
the share is 5 % on whatever GPU runs it. The calibration's steps run the forward, backward and
update past the module call, torch.autograd.backward and the optimizer's step, which the probe
hooks to find steps: it sees none of them.

Deterministic algorithms need cuBLAS's fixed workspace on CUDA (CUBLAS_WORKSPACE_CONFIG, set
below before any CUDA work, for the baseline and the candidate alike), and from torch 2.1 they
fill every empty tensor's memory: turned off here, so that the planted matmuls are their only
price. cuDNN's benchmark mode, the no-op control, is read by convolutions and by torch.compile's
guards, neither of which this script has.

--device cpu runs the same on the host, timed by its clock, for a dry run without a GPU (with
small sizes: --width 64 --depth 4 --cost-size 32).
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch  # noqa: E402 (after cuBLAS's workspace is chosen)
import torch.nn as nn  # noqa: E402

CALIBRATION_STEPS = 20
LEARNING_RATE = 1e-5  # small: the weights' scale, and so the step's work, stays as it starts


def chain(x, weights):
    for weight in weights:
        x = torch.relu(nn.functional.linear(x, weight))
    return x


class MatmulChain(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.weights = nn.ParameterList(
            [nn.Parameter(torch.empty(width, width)) for _ in range(depth)])
        for weight in self.weights:
            nn.init.kaiming_normal_(weight, nonlinearity="relu")

    def forward(self, x):
        return chain(x, self.weights)


class PlantedCost:
    """Matmuls that stand for what deterministic algorithms cost a step."""

    def __init__(self, size, device):
        self._a = torch.randn(size, size, device=device)
        self._b = torch.randn(size, size, device=device)
        self._out = torch.empty(size, size, device=device)
        self.matmuls = 0  # paid per step while deterministic algorithms are on; calibrated

    def pay(self, matmuls):
        for _ in range(matmuls):
            torch.mm(self._a, self._b, out=self._out)


class Stopwatch:
    """The median time a piece of work takes where it runs: CUDA events around it on the current
    stream on a GPU, the host's clock on the CPU."""

    def __init__(self, device):
        self._cuda = device.type == "cuda"

    def median_ms(self, work, repeats):
        times = []
        for _ in range(repeats):
            if self._cuda:
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                work()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
            else:
                begin = time.perf_counter()
                work()
                times.append((time.perf_counter() - begin) * 1e3)
        return statistics.median(times)


def unseen_step(model, inputs, targets):
    """One training step's work, as the loop's step does it, unseen by the probe."""
    weights = list(model.weights)
    loss = nn.functional.mse_loss(chain(inputs, weights), targets)
    grads = torch.autograd.grad(loss, weights)
    with torch.no_grad():
        for weight, grad in zip(weights, grads):
            weight.sub_(grad, alpha=LEARNING_RATE)


def calibrate(model, inputs, targets, cost, share, stopwatch):
    """Sets cost.matmuls to `share` of the step's time; returns the calibration in words."""
    for _ in range(5):  # cuBLAS's handles and kernel choices, the allocator's blocks
        unseen_step(model, inputs, targets)
    cost.pay(5)
    step_ms = stopwatch.median_ms(lambda: unseen_step(model, inputs, targets), CALIBRATION_STEPS)
    matmul_ms = stopwatch.median_ms(lambda: cost.pay(10), CALIBRATION_STEPS) / 10
    cost.matmuls = max(1, round(share * step_ms / matmul_ms))
    cost_ms = stopwatch.median_ms(lambda: cost.pay(cost.matmuls), CALIBRATION_STEPS)
    return ("the step's forward, backward and update %.3f ms (median of %d), the planted cost "
            "%d matmuls %.3f ms: %.2f %% of the step" % (
                step_ms, CALIBRATION_STEPS, cost.matmuls, cost_ms, 100 * cost_ms / step_ms))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--cost-share", type=float, default=0.05)
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--cost-size", type=int, default=1024)
    parser.add_argument("--deterministic", action="store_true",
                        help="the script asks for deterministic algorithms itself")
    args = parser.parse_args()
    if not 0 < args.cost_share < 1:
        parser.error("--cost-share is a share of the step, between 0 and 1: %g" % args.cost_share)
    for name in ("steps", "width", "depth", "cost_size"):
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1: %d" % (name.replace("_", "-"),
                                                          getattr(args, name)))
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch %s sees no CUDA device here (--device cpu runs the "
                     "same on the host)" % torch.__version__)
    return args


def main():
    args = parse_args()
    device = torch.device(args.device)
    if hasattr(torch.utils, "deterministic"):  # torch 2.1 and later
        torch.utils.deterministic.fill_uninitialized_memory = False
    torch.manual_seed(0)
    model = MatmulChain(args.width, args.depth).to(device)
    inputs = torch.randn(args.width, args.width, device=device)
    targets = torch.randn(args.width, args.width, device=device)
    cost = PlantedCost(args.cost_size, device)
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "the CPU"
    print("calibration on %s, width %d, depth %d, cost matmuls of %d: %s" % (
        where, args.width, args.depth, args.cost_size,
        calibrate(model, inputs, targets, cost, args.cost_share, Stopwatch(device))), flush=True)

    torch.use_deterministic_algorithms(args.deterministic)
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    for _ in range(args.steps):
        if torch.are_deterministic_algorithms_enabled():
            cost.pay(cost.matmuls)
        loss = nn.functional.mse_loss(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
