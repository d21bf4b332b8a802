"""By-hand check of a bisection's memory per module instance (issue #27).

    python bench/memory_oracle.py [--report OUT/report.json] [--step 3] [--json FILE] \
        -- train.py [ARGS...]

Runs the user's training script unmodified (runpy) and, in one training step (the --step-th
backward; earlier steps warm up), measures independently of advisor's probe what each module
instance's forward kept for the backward:

- every ATen op's outputs are seen through a TorchDispatchMode: a storage an op returns that
  shares no storage with its inputs was allocated by that op, in the forward of the innermost
  module instance running then (module forward pre- and post-hooks keep the stack);
- torch.autograd.graph.saved_tensors_hooks' pack hook gives every tensor the graph saves for the
  backward; with the forward's storages still referenced by a live tensor when backward() is
  called (the step's outputs the script holds, such as a ModelOutput's logits), those are what
  the backward began with;
- an instance's kept-for-backward is the bytes of the distinct such storages allocated in its
  forward or its submodules' (advisor's `memory.modules[]` counts an instance with its
  uninstrumented submodules: the level that compared it with its siblings).

On CUDA it also records torch.cuda.memory_allocated() around each instance's forward (the net
bytes the forward left allocated, the issue's by-hand measure) and max_memory_allocated() over the
step, compared with `memory.peak.mb`. With --report it prints, for every instance of
`memory.modules[]`, advisor's kept_for_backward_mb beside the oracle's and the difference; exit 1
where one differs by more than 5 % (and 0.05 MB). The script exits after the measured step.
"""
import argparse
import json
import os
import runpy
import sys
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode

MB = 1024.0 * 1024.0


def storage_key(tensor):
    """The storage's address and size in bytes (torch 1.13 has no untyped_storage())."""
    if hasattr(tensor, "untyped_storage"):
        storage = tensor.untyped_storage()
    else:
        storage = tensor.storage()
    return storage.data_ptr(), storage.nbytes()


def tensors_in(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)


class Oracle:
    def __init__(self, measured_step):
        self.measured_step = measured_step
        self.backwards = 0
        self.root = None
        self.names = {}
        self.stack = []           # paths of the instances whose forward is running
        self.recording = False
        self.mode = None
        # storage address -> [path, bytes, weakrefs of the tensors seen on it (views too)]
        self.allocated_by = {}
        self.saved = {}           # storage address -> bytes, saved for backward in the step
        self.cuda = torch.cuda.is_available()
        self.cuda_net = {}        # path -> bytes its forward left allocated (CUDA)
        self.cuda_before = []
        self.result = None

    # The model is the outermost module whose forward runs first with parameters.
    def pre_hook(self, module, args):
        if self.root is None:
            if not any(True for _ in module.parameters()):
                return
            self.root = module
            self.names = {id(m): name for name, m in module.named_modules()}
        if not self.stack and module is self.root:
            if self.backwards + 1 == self.measured_step and not self.recording:
                self.start_recording()
        path = self.names.get(id(module))
        if path is None:
            return
        self.stack.append(path)
        if self.recording and self.cuda:
            torch.cuda.synchronize()
            self.cuda_before.append(torch.cuda.memory_allocated())

    def post_hook(self, module, args, output):
        path = self.names.get(id(module))
        if path is None or not self.stack or self.stack[-1] != path:
            return
        self.stack.pop()
        if self.recording and self.cuda and self.cuda_before:
            torch.cuda.synchronize()
            net = torch.cuda.memory_allocated() - self.cuda_before.pop()
            self.cuda_net[path] = self.cuda_net.get(path, 0) + net

    def start_recording(self):
        self.recording = True
        self.allocated_by.clear()
        self.saved.clear()
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            self.result_at_start_mb = torch.cuda.memory_allocated() / MB
        oracle = self

        class SeeAllocations(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                inputs = {storage_key(t)[0] for t in tensors_in((args, kwargs))}
                path = oracle.stack[-1] if oracle.stack else ""
                for tensor in tensors_in(out):
                    address, nbytes = storage_key(tensor)
                    if address == 0:
                        continue
                    if address in inputs:  # in place or a view: nothing allocated
                        if address in oracle.allocated_by:
                            oracle.allocated_by[address][2].append(weakref.ref(tensor))
                        continue
                    oracle.allocated_by[address] = [path, nbytes, [weakref.ref(tensor)]]
                return out

        self.mode = SeeAllocations()
        self.mode.__enter__()

    def pack(self, tensor):
        if self.recording:
            address, nbytes = storage_key(tensor)
            self.saved[address] = nbytes
        return tensor

    def on_backward(self):
        self.backwards += 1
        if not self.recording:
            return
        self.mode.__exit__(None, None, None)
        self.recording = False
        kept = {}
        for address, (path, nbytes, refs) in self.allocated_by.items():
            if address not in self.saved and all(ref() is None for ref in refs):
                continue  # freed before the backward
            # The instance and every ancestor count it: advisor's levels count subtrees.
            parts = path.split(".") if path else []
            for depth in range(len(parts) + 1):
                prefix = ".".join(parts[:depth])
                kept[prefix] = kept.get(prefix, 0) + nbytes
        self.result = {"kept_for_backward_mb": {p: b / MB for p, b in kept.items()}}
        if self.cuda:
            self.result["cuda_net_forward_mb"] = {p: b / MB for p, b in self.cuda_net.items()}
            self.result["cuda_allocated_at_start_mb"] = self.result_at_start_mb

    def after_backward(self):
        return self.result is not None and self.backwards == self.measured_step


def compare(result, report_path):
    with open(report_path) as f:
        report = json.load(f)
    memory = report.get("memory") or {}
    rows = []
    for module in memory.get("modules", []):
        advisor = module.get("kept_for_backward_mb")
        if advisor is None:
            continue
        hand = result["kept_for_backward_mb"].get(module["path"], 0.0)
        diff = advisor - hand
        off = abs(diff) > 0.05 and abs(diff) > 0.05 * max(hand, 1e-9)
        net = result.get("cuda_net_forward_mb", {}).get(module["path"])
        rows.append((module["path"], advisor, hand, diff, off, net))
    cuda = "cuda_net_forward_mb" in result
    print("%-40s %12s %12s %9s%s" % ("instance", "advisor MB", "by hand MB", "diff",
                                     "  net of its forward (memory_allocated) MB" if cuda else ""))
    for path, advisor, hand, diff, off, net in rows:
        print("%-40s %12.3f %12.3f %+9.3f%s%s" % (
            path, advisor, hand, diff, "  OFF" if off else "",
            "  %.3f" % net if net is not None else ""))
    peak = (memory.get("peak") or {})
    print("advisor peak: %s MB in the %s, held by %s" %
          (peak.get("mb"), peak.get("phase"), peak.get("path")))
    categories = peak.get("by_category") or {}
    print("advisor peak by category: " + ", ".join(
        "%s %.3f MB" % (name, mb) for name, mb in sorted(categories.items(), key=lambda c: -c[1])))
    failed = any(row[4] for row in rows)
    if "cuda_max_allocated_mb" in result and peak.get("mb"):
        by_hand = result["cuda_max_allocated_mb"]
        off = abs(peak["mb"] - by_hand) / by_hand
        print("cuda max_memory_allocated over the step: %.3f MB, advisor's peak %.3f MB: %.2f %% "
              "apart%s" % (by_hand, peak["mb"], 100 * off, "  OFF (the 1 % bar)" if off > 0.01 else ""))
        # What the peak missed before it counted the bytes held as its window began (issue #27).
        before = categories.get("before_window", 0.0)
        without = peak["mb"] - before
        print("  of it before_window %.3f MB; without it %.3f MB, %.2f %% apart; by hand %.3f MB "
              "were allocated as the measured step's forward began (parameters %.3f, optimizer "
              "state %.3f MB in advisor's peak)"
              % (before, without, 100 * abs(without - by_hand) / by_hand,
                 result.get("cuda_allocated_at_start_mb", float("nan")),
                 categories.get("parameters", 0.0), categories.get("optimizer_state", 0.0)))
        failed = failed or off > 0.01
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--report", help="an advisor report.json of a bisection of the script")
    parser.add_argument("--step", type=int, default=3, help="the training step measured (1-based)")
    parser.add_argument("--json", help="write the oracle's figures here")
    parser.add_argument("script", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    script = options.script[1:] if options.script[:1] == ["--"] else options.script
    if not script:
        parser.error("no training script")

    oracle = Oracle(options.step)
    torch.nn.modules.module.register_module_forward_pre_hook(oracle.pre_hook)
    torch.nn.modules.module.register_module_forward_hook(oracle.post_hook)
    hooks = torch.autograd.graph.saved_tensors_hooks(oracle.pack, lambda tensor: tensor)
    hooks.__enter__()

    def finish():
        result = oracle.result
        if oracle.cuda:
            torch.cuda.synchronize()
            result["cuda_max_allocated_mb"] = torch.cuda.max_memory_allocated() / MB
        if options.json:
            with open(options.json, "w") as f:
                json.dump(result, f, indent=1, sort_keys=True)
        failed = compare(result, options.report) if options.report else False
        if not options.report:
            for path, mb in sorted(result["kept_for_backward_mb"].items()):
                print("%-40s %12.3f" % (path or "(model)", mb))
        sys.stdout.flush()
        os._exit(1 if failed else 0)

    original_backward = torch.autograd.backward

    def backward(*args, **kwargs):
        oracle.on_backward()
        out = original_backward(*args, **kwargs)
        if oracle.after_backward() and not oracle.cuda:
            finish()
        return out

    torch.autograd.backward = backward

    # On CUDA the step's peak may come in its optimizer step: finish at the next forward.
    def next_step_hook(module, args):
        if oracle.result is not None and oracle.cuda and module is oracle.root \
                and len(oracle.stack) == 0:
            finish()

    if oracle.cuda:
        torch.nn.modules.module.register_module_forward_pre_hook(next_step_hook)

    sys.argv = script
    sys.path.insert(0, os.path.dirname(os.path.abspath(script[0])))
    runpy.run_path(script[0], run_name="__main__")
    if oracle.result is None:
        print("memory_oracle: %s ran fewer than %d steps" % (script[0], options.step),
              file=sys.stderr)
        sys.exit(1)
    finish()


if __name__ == "__main__":
    main()
