#!/usr/bin/env python3
"""Records a compiled model's kernel provenance and a profiled window of it, for advisor's tests of
the attribution inside a compiled model (issue #29; docs/script-mode.md, "Inside the whole model's
compilation: provenance").

    record_compiled_provenance.py OUTDIR [--batch 128] [--warmup 3] [--steps 2] [--cpu-mlp]

The model is the seed's (bench/scripts/vit_train.py): timm's vit_base_patch16_224 with
patch_drop_rate=0.5, deterministic algorithms on, fp32, SGD with momentum, torch.compile's
default mode, on CUDA; random images made on the GPU (the data pipeline is not what is measured).
The probe's ProvenanceRecorder (probes/python/site/advisor_probe/provenance.py) records, while
inductor compiles, each graph's kernels and the module instances their nodes belong to; after
--warmup steps (the compilation of the forward and backward graphs), --steps steps run under
torch.profiler (CPU and CUDA activity, each step a ProfilerStep#N range).

Writes:
    OUTDIR/provenance.json   {"torch", "model", "graphs": [the recorder's tables]}, what advisor reads
    OUTDIR/trace.json.gz     the torch.profiler trace of the --steps steps
    OUTDIR/output_code/graph_N.py  each graph's output code, to check the parser by eye (not for
                             the test data)

--cpu-mlp records the two-block MLP of the modern lane's tests on the CPU instead
(tests/script_runs/two_block_mlp.py, with its token drop and deterministic algorithms on, as the
seed's patch dropout; no GPU needed, a minute or two of inductor's C++ compile); its trace shows
the extern kernels (the matrix multiplies, the drop's deterministic scatter) only: inductor's C++
kernels are not profiled unless torch._inductor.config.cpp.enable_kernel_profile, which fails to
load in some torch builds (an undefined aoti_record_function_end). On a busy machine,
OMP_NUM_THREADS=1 keeps the intra-op threads' waits out of the recorded ops' times.
"""

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
sys.path.insert(0, os.path.join(_ROOT, "probes", "python", "site"))
sys.path.insert(0, os.path.join(_ROOT, "tests", "script_runs"))  # two_block_mlp, for --cpu-mlp

from advisor_probe.provenance import ProvenanceRecorder  # noqa: E402


class _Codes:
    """Keeps each graph's output code as the recorder reads it."""

    def __init__(self, recorder):
        self.codes = []
        written = recorder.code_written

        def keep(code, externs=None):
            self.codes.append(code)
            written(code, externs)
        recorder.code_written = keep


def vit_step(torch, batch):
    import timm
    # Deterministic cuBLAS (the seed's deterministic algorithms) needs a fixed workspace on
    # CUDA builds that still check it.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    device = torch.device("cuda")
    model = torch.compile(timm.create_model("vit_base_patch16_224", patch_drop_rate=0.5).to(device))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    images = torch.randn(batch, 3, 224, 224, device=device)
    labels = torch.randint(0, 1000, (batch,), device=device)

    def step():
        loss = loss_fn(model(images), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
    return step, "timm vit_base_patch16_224 patch_drop_rate=0.5, batch %d, cuda" % batch


def mlp_step(torch, batch):
    from two_block_mlp import Mlp
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    model = torch.compile(Mlp(32, 64, drop_tokens=True))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs = torch.randn(batch, 16, 32)

    def step():
        loss = model(inputs).sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return step, "two-block MLP with token drop, deterministic, batch %d, cpu" % batch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--cpu-mlp", action="store_true")
    args = parser.parse_args()
    if args.batch < 1 or args.warmup < 2 or args.steps < 1:
        sys.exit("record_compiled_provenance.py: --batch and --steps must be at least 1, --warmup "
                 "at least 2 (the forward and backward graphs compile in the first step)")

    import torch
    import torch._inductor.config as inductor_config
    # Every graph compiled here, never answered from an earlier run's cache (whose compilation
    # this process would not see).
    inductor_config.force_disable_caches = True
    recorder = ProvenanceRecorder()
    recorder.install()
    codes = _Codes(recorder)

    step, model = (mlp_step if args.cpu_mlp else vit_step)(torch, args.batch)
    for _ in range(args.warmup):
        step()
    activities = [torch.profiler.ProfilerActivity.CPU]
    if not args.cpu_mlp:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    # One profiler step of warm-up (discarded), then --steps recorded, each in a ProfilerStep#N
    # range.
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=args.steps, repeat=1)
    with torch.profiler.profile(activities=activities, schedule=schedule) as profiler:
        for _ in range(args.steps + 1):
            step()
            profiler.step()

    os.makedirs(os.path.join(args.outdir, "output_code"), exist_ok=True)
    tables = recorder.tables()
    with open(os.path.join(args.outdir, "provenance.json"), "w") as out:
        json.dump({"torch": torch.__version__, "model": model, "graphs": tables}, out, indent=1)
    for index, code in enumerate(codes.codes):
        with open(os.path.join(args.outdir, "output_code", "graph_%d.py" % index), "w") as out:
            out.write(code)
    with tempfile.TemporaryDirectory() as scratch:
        plain = os.path.join(scratch, "trace.json")
        profiler.export_chrome_trace(plain)
        with open(plain, "rb") as source, \
                gzip.open(os.path.join(args.outdir, "trace.json.gz"), "wb") as target:
            shutil.copyfileobj(source, target)
    for table in tables:
        mapped = sum(1 for kernel in table["kernels"] + table["extern_calls"]
                     if kernel["instances"])
        by_origins = sum(1 for call in table["extern_calls"] if call["nodes_from"] == "ir_origins")
        print("%s graph: %d generated kernels, %d extern calls (%d named by their IR node's "
              "origins), %d of them with an instance" %
              (table["direction"], len(table["kernels"]), len(table["extern_calls"]), by_origins,
               mapped))
    print("wrote %s (provenance.json, trace.json.gz, output_code/)" % args.outdir)


if __name__ == "__main__":
    main()
