#!/usr/bin/env python3
"""Export a PyTorch model for ``advisor``: a TorchScript archive with its training workload inside.

``advisor bisect model.pt`` needs no flags because the archive carries the workload as the extra
file ``advisor/workload.json`` (format: docs/workload.md). This module writes such archives.

As a library::

    import sys; sys.path.insert(0, "scripts")
    from advisor_export import export
    export(model, "model.pt",
           inputs=[{"shape": [32, 3, 64, 64], "dtype": "float32", "init": "randn"}],
           target={"shape": [32], "dtype": "int64", "init": "randint", "high": 10},
           loss="cross_entropy", optimizer={"name": "sgd", "lr": 0.01, "momentum": 0.9})

As a command::

    advisor_export.py show  model.pt                    print the embedded workload
    advisor_export.py check model.pt [--steps N]        validate it and time N training steps
    advisor_export.py embed in.pt workload.json -o out.pt   add a workload to an existing archive

Runs with PyTorch 1.13 and 2.x. On the project's Debian machines, start it with /usr/bin/python3
(the plain ``python3`` there has no torch).
"""

import argparse
import contextlib
import copy
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import advisor_input_stage  # scripts/ is on the path wherever this module is

WORKLOAD_FILE = "advisor/workload.json"

DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "bool": torch.bool,
}
FLOAT_DTYPES = ("float32", "float16", "bfloat16")
INITS = ("randn", "rand", "randint", "zeros", "ones")
LOSSES = ("cross_entropy", "mse")
OPTIMIZERS = ("sgd", "adamw")
METHODS = ("script", "trace")
TOP_LEVEL_KEYS = {"inputs", "target", "loss", "optimizer", "deterministic", "seed", "device",
                  "description", "source_model", "input_stage", "autocast", "cuda_graphs"}
TENSOR_KEYS = {"shape", "dtype", "init", "low", "high"}
AUTOCAST_DTYPES = ("bfloat16", "float16")
OPTIMIZER_KEYS = {"sgd": {"name", "lr", "momentum", "weight_decay", "foreach"},
                  "adamw": {"name", "lr", "betas", "weight_decay"}}
# Most elements one input or target tensor may have, as advisor's kMaxTensorElements
# (engine/workload/workload_spec.h): a typo in a shape is refused, not handed to the allocator.
MAX_TENSOR_ELEMENTS = 2 ** 31


class ExportError(RuntimeError):
    """The model could not be scripted, traced, or trained one step with its workload."""


class CompileError(ExportError):
    """torch.jit.script or torch.jit.trace failed on the model."""


# --------------------------------------------------------------------------------------------------
# Workload validation


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _check_keys(where, obj, allowed):
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(allowed)}")


def validate_tensor_spec(spec, where):
    """Checks one tensor spec ({"shape", "dtype", "init", "low", "high"}); raises ValueError."""
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected an object, got {type(spec).__name__}")
    _check_keys(where, spec, TENSOR_KEYS)
    for key in ("shape", "dtype", "init"):
        if key not in spec:
            raise ValueError(f"{where}: missing \"{key}\"")
    shape = spec["shape"]
    if (not isinstance(shape, list) or not shape
            or not all(_is_int(d) and d > 0 for d in shape)):
        raise ValueError(f"{where}.shape: expected a non-empty list of positive integers "
                         f"(dim 0 is the batch), got {shape!r}")
    if math.prod(shape) > MAX_TENSOR_ELEMENTS:
        raise ValueError(f"{where}.shape: {' x '.join(map(str, shape))} elements are more than "
                         f"the {MAX_TENSOR_ELEMENTS} (2^31) a workload tensor may have")
    dtype, init = spec["dtype"], spec["init"]
    if dtype not in DTYPES:
        raise ValueError(f"{where}.dtype: {dtype!r} is not one of {list(DTYPES)}")
    if init not in INITS:
        raise ValueError(f"{where}.init: {init!r} is not one of {list(INITS)}")
    if init in ("randn", "rand") and dtype not in FLOAT_DTYPES:
        raise ValueError(f"{where}: init {init!r} needs a floating dtype, not {dtype!r}")
    if init == "randint":
        if "high" not in spec:
            raise ValueError(f"{where}: init \"randint\" needs \"high\" (exclusive upper bound)")
        low, high = spec.get("low", 0), spec["high"]
        if not _is_int(low) or not _is_int(high) or low >= high:
            raise ValueError(f"{where}: randint needs integers low < high, got low={low!r} "
                             f"high={high!r}")
        if dtype == "bool" and (low < 0 or high > 2):
            raise ValueError(f"{where}: a bool randint needs 0 <= low < high <= 2")
    elif "low" in spec or "high" in spec:
        raise ValueError(f"{where}: \"low\"/\"high\" apply only to init \"randint\"")


def validate_workload(workload):
    """Checks a workload dict against the format of docs/workload.md.

    Returns a copy with the optional fields filled in with their defaults; raises ValueError naming
    the first problem found.
    """
    if not isinstance(workload, dict):
        raise ValueError(f"workload: expected a JSON object, got {type(workload).__name__}")
    _check_keys("workload", workload, TOP_LEVEL_KEYS)
    for key in ("inputs", "target", "loss", "optimizer"):
        if key not in workload:
            raise ValueError(f"workload: missing \"{key}\"")

    inputs = workload["inputs"]
    if not isinstance(inputs, list) or not inputs:
        raise ValueError("workload.inputs: expected a non-empty list of tensor specs "
                         "(the positional arguments of forward)")
    for i, spec in enumerate(inputs):
        validate_tensor_spec(spec, f"workload.inputs[{i}]")
    validate_tensor_spec(workload["target"], "workload.target")
    batch = inputs[0]["shape"][0]
    for where, spec in [(f"workload.inputs[{i}]", s) for i, s in enumerate(inputs)] + [
            ("workload.target", workload["target"])]:
        if spec["shape"][0] != batch:
            raise ValueError(f"{where}.shape: dim 0 is the batch and must be {batch} like "
                             f"inputs[0], got {spec['shape'][0]}")

    loss = workload["loss"]
    if loss not in LOSSES:
        raise ValueError(f"workload.loss: {loss!r} is not one of {list(LOSSES)}")
    if loss == "cross_entropy" and workload["target"]["dtype"] in ("int32", "bool"):
        raise ValueError("workload.target: cross_entropy takes int64 class indices or floating "
                         "class probabilities")
    if loss == "mse" and workload["target"]["dtype"] not in FLOAT_DTYPES:
        raise ValueError("workload.target: mse needs a floating target")

    opt = workload["optimizer"]
    if not isinstance(opt, dict):
        raise ValueError("workload.optimizer: expected an object such as "
                         "{\"name\": \"sgd\", \"lr\": 0.01}")
    name = opt.get("name")
    if name not in OPTIMIZERS:
        raise ValueError(f"workload.optimizer.name: {name!r} is not one of {list(OPTIMIZERS)}")
    _check_keys("workload.optimizer", opt, OPTIMIZER_KEYS[name])
    if not _is_number(opt.get("lr")) or opt["lr"] <= 0:
        raise ValueError(f"workload.optimizer.lr: expected a positive number, got "
                         f"{opt.get('lr')!r}")
    for key in ("momentum", "weight_decay"):
        if key in opt and (not _is_number(opt[key]) or opt[key] < 0):
            raise ValueError(f"workload.optimizer.{key}: expected a number >= 0, got {opt[key]!r}")
    if "betas" in opt:
        betas = opt["betas"]
        if (not isinstance(betas, list) or len(betas) != 2
                or not all(_is_number(b) and 0 <= b < 1 for b in betas)):
            raise ValueError(f"workload.optimizer.betas: expected two numbers in [0, 1), "
                             f"got {betas!r}")

    for key, kind, check in (("deterministic", "true or false", lambda v: isinstance(v, bool)),
                             ("seed", "a non-negative integer", lambda v: _is_int(v) and v >= 0),
                             ("device", "\"cpu\" or \"cuda\"", lambda v: v in ("cpu", "cuda")),
                             ("description", "a string", lambda v: isinstance(v, str)),
                             ("source_model", "a string", lambda v: isinstance(v, str))):
        if key in workload and not check(workload[key]):
            raise ValueError(f"workload.{key}: expected {kind}, got {workload[key]!r}")

    _validate_step_options(workload)

    result = copy.deepcopy(workload)
    if "input_stage" in workload:
        result["input_stage"] = advisor_input_stage.validate_input_stage(workload["input_stage"])
    result.setdefault("deterministic", False)
    result.setdefault("seed", 0)
    result.setdefault("device", "cpu")
    defaults = ({"momentum": 0.0, "weight_decay": 0.0} if name == "sgd"
                else {"betas": [0.9, 0.999], "weight_decay": 0.01})
    for key, value in defaults.items():
        result["optimizer"].setdefault(key, value)
    return result


def _validate_step_options(workload):
    """autocast, cuda_graphs and optimizer.foreach: their types, and the device and optimizer they
    need (the same rules as WhyStepOptionsDoNotFit in engine/workload/step_options.cpp)."""
    if "autocast" in workload and workload["autocast"] not in AUTOCAST_DTYPES:
        raise ValueError(f"workload.autocast: {workload['autocast']!r} is not one of "
                         f"{list(AUTOCAST_DTYPES)}")
    for where, obj, key in (("workload.cuda_graphs", workload, "cuda_graphs"),
                            ("workload.optimizer.foreach", workload["optimizer"], "foreach")):
        if key in obj and not isinstance(obj[key], bool):
            raise ValueError(f"{where}: expected true or false, got {obj[key]!r}")
    cuda = torch.device(workload.get("device", "cpu")).type == "cuda"
    if "autocast" in workload and not cuda:
        raise ValueError("workload.autocast: needs \"device\": \"cuda\" (advisor runs autocast on "
                         "CUDA only)")
    if workload.get("cuda_graphs", False):
        if not cuda:
            raise ValueError("workload.cuda_graphs: needs \"device\": \"cuda\"")
        if workload["optimizer"]["name"] == "adamw":
            raise ValueError("workload.cuda_graphs: AdamW computes its bias correction from a "
                             "host-side step count, which a captured graph would freeze; use "
                             "\"sgd\"")
        if "input_stage" in workload:
            raise ValueError("workload.cuda_graphs: a workload with an input_stage takes a new "
                             "batch every step, which a captured graph would not see")


# --------------------------------------------------------------------------------------------------
# Running a workload


def make_tensor(spec, device, generator=None):
    """Builds the example tensor a validated tensor spec describes."""
    shape, dtype, init = spec["shape"], DTYPES[spec["dtype"]], spec["init"]
    if init == "randn":
        t = torch.randn(shape, generator=generator)
    elif init == "rand":
        t = torch.rand(shape, generator=generator)
    elif init == "randint":
        t = torch.randint(spec.get("low", 0), spec["high"], shape, generator=generator)
    elif init == "zeros":
        t = torch.zeros(shape)
    else:
        t = torch.ones(shape)
    return t.to(device=device, dtype=dtype)


def make_batch(workload):
    """Returns (inputs, target) for a validated workload, drawn from a generator seeded with its
    seed: the inputs in order, then the target."""
    generator = torch.Generator().manual_seed(workload["seed"])
    # An input stage's base tensors stay on the host: it prepares each batch from them there.
    device = torch.device("cpu" if "input_stage" in workload else workload["device"])
    inputs = [make_tensor(spec, device, generator) for spec in workload["inputs"]]
    target = make_tensor(workload["target"], device, generator)
    return inputs, target


def make_optimizer(module, spec):
    params = [p for p in module.parameters() if p.requires_grad]
    if not params:
        raise ExportError("the model has no trainable parameters")
    if spec["name"] == "sgd":
        return torch.optim.SGD(params, lr=spec["lr"], momentum=spec["momentum"],
                               weight_decay=spec["weight_decay"],
                               foreach=spec.get("foreach", False))
    return torch.optim.AdamW(params, lr=spec["lr"], betas=tuple(spec["betas"]),
                             weight_decay=spec["weight_decay"])


def prediction_of(output):
    """The prediction inside a forward output: the Tensor itself or the first element of a tuple."""
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, tuple) and output and isinstance(output[0], torch.Tensor):
        return output[0]
    raise ExportError(f"forward returned {type(output).__name__}; advisor needs a Tensor or a "
                      f"tuple whose first element is the prediction")


def compute_loss(kind, prediction, target):
    if kind == "cross_entropy":
        return F.cross_entropy(prediction.float(), target if target.dtype == torch.int64
                               else target.float())
    if prediction.shape != target.shape:
        raise ExportError(f"mse: prediction shape {list(prediction.shape)} differs from target "
                          f"shape {list(target.shape)}")
    return F.mse_loss(prediction.float(), target.float())


class deterministic_mode:
    """Context manager: torch.use_deterministic_algorithms(enabled) inside, previous value after.

    On CUDA, deterministic cuBLAS needs CUBLAS_WORKSPACE_CONFIG; it is set to ":4096:8" when unset.
    """

    def __init__(self, enabled):
        self.enabled = enabled

    def __enter__(self):
        self.previous = torch.are_deterministic_algorithms_enabled()
        if self.enabled:
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(self.enabled)
        return self

    def __exit__(self, *exc):
        torch.use_deterministic_algorithms(self.previous)
        return False


def training_step(module, optimizer, inputs, target, loss_kind, autocast=None):
    """One training step: forward, loss, backward, optimizer step. Returns the loss as a float.

    ``autocast`` ("bfloat16", "float16" or None) runs forward and loss under CUDA autocast. A
    workload's cuda_graphs is not replayed here: a graph replays the same eager step."""
    optimizer.zero_grad(set_to_none=True)
    # No autocast object at all without autocast: torch 1.13's checks the GPU even when disabled.
    region = torch.autocast("cuda", dtype=DTYPES[autocast]) if autocast else contextlib.nullcontext()
    with region:
        loss = compute_loss(loss_kind, prediction_of(module(*inputs)), target)
    loss.backward()
    optimizer.step()
    return loss.item()


def validate_step(module, workload, source="the model"):
    """Runs one training step of ``module`` with ``workload`` and restores the module's state after.

    Raises ValueError ``SOURCE: input_stage.method ...`` when the input stage's method does not fit
    the workload, ExportError with the reason when the step fails or trains nothing.
    """
    if "input_stage" in workload:
        try:
            advisor_input_stage.check_method(module, workload)
        except ValueError as e:
            raise ValueError(f"{source}: {e}") from e
    saved = {k: v.detach().clone() for k, v in module.state_dict().items()}
    try:
        inputs, target = make_batch(workload)
    except (RuntimeError, MemoryError) as e:  # a shape within the limit, beyond this machine
        raise ExportError(f"cannot make the workload's tensors: {type(e).__name__}: "
                          f"{_first_line(e)}") from e
    optimizer = make_optimizer(module, workload["optimizer"])
    try:
        with deterministic_mode(workload["deterministic"]):
            if "input_stage" in workload:
                inputs, target = advisor_input_stage.prepare_batch(module, workload, inputs, target)
            loss = training_step(module, optimizer, inputs, target, workload["loss"],
                                 workload.get("autocast"))
            trained = [name for name, p in module.named_parameters() if p.grad is not None]
    except ExportError:
        raise
    except Exception as e:  # the model's own error: report it with the workload's context
        raise ExportError(f"one training step with the workload failed: {type(e).__name__}: "
                          f"{_first_line(e)}") from e
    finally:
        with torch.no_grad():
            module.load_state_dict(saved)
        optimizer.zero_grad(set_to_none=True)
    if not trained:
        raise ExportError("the training step gave no parameter a gradient")
    if not math.isfinite(loss):
        raise ExportError(f"the training step's loss is {loss}")
    return loss


def _first_line(error):
    """TorchScript's errors run over many lines with a traceback; the first says what happened."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else ""


def time_steps(module, workload, steps, warmup=3):
    """Runs ``warmup`` + ``steps`` training steps; returns the per-step wall times (seconds) of the
    timed ones. TorchScript's profiling executor compiles during the first calls: keep
    warmup >= 3."""
    inputs, target = make_batch(workload)
    optimizer = make_optimizer(module, workload["optimizer"])
    cuda = torch.device(workload["device"]).type == "cuda"
    times = []
    with deterministic_mode(workload["deterministic"]):
        for i in range(warmup + steps):
            start = time.perf_counter()
            batch = (advisor_input_stage.prepare_batch(module, workload, inputs, target)
                     if "input_stage" in workload else (inputs, target))
            training_step(module, optimizer, *batch, workload["loss"],
                          workload.get("autocast"))
            if cuda:
                torch.cuda.synchronize()
            if i >= warmup:
                times.append(time.perf_counter() - start)
    return times


# --------------------------------------------------------------------------------------------------
# Export


def make_workload(inputs, target, loss, optimizer, deterministic=False, seed=0, device="cpu",
                  description="", source_model=None, autocast=None, cuda_graphs=False,
                  input_stage=None):
    """Assembles and validates a workload dict (see validate_workload)."""
    workload = {"inputs": inputs, "target": target, "loss": loss, "optimizer": optimizer,
                "deterministic": deterministic, "seed": seed, "device": device}
    if description:
        workload["description"] = description
    if source_model:
        workload["source_model"] = source_model
    if input_stage is not None:
        workload["input_stage"] = input_stage
    if autocast is not None:
        workload["autocast"] = autocast
    if cuda_graphs:
        workload["cuda_graphs"] = True
    return validate_workload(workload)


def save_archive(module, path, workload):
    """Writes a TorchScript module with a validated workload as advisor/workload.json."""
    module.train()
    torch.jit.save(module, path, _extra_files={WORKLOAD_FILE: json.dumps(workload, indent=2)})


def export(model, path, inputs, target, loss, optimizer, deterministic=False, method="script",
           seed=0, device="cpu", description="", source_model=None, autocast=None,
           cuda_graphs=False, input_stage=None):
    """Compiles ``model`` to TorchScript, checks one training step, and saves it with its workload.

    Args:
      model: an nn.Module; it is moved to ``device`` and put in training mode.
      path: the archive to write.
      inputs: list of tensor specs, one per positional argument of forward.
      target: tensor spec of the target.
      loss: "cross_entropy" or "mse".
      optimizer: {"name": "sgd"|"adamw", "lr": ..., and momentum/weight_decay/betas}.
      deterministic: whether the workload runs with torch.use_deterministic_algorithms(True).
      method: "script" (torch.jit.script) or "trace" (torch.jit.trace with the workload's inputs).
      seed, device, description, source_model: copied into the workload.
      input_stage: {"method": ..., "workers": ..., "pin_memory": ...}, or None for none
        (docs/workload.md); the method must be a @torch.jit.export method of the model.
      autocast, cuda_graphs: the step options of docs/workload.md (None/False: off); the one-step
        check runs under autocast but does not capture a graph. optimizer may hold "foreach".

    Returns the TorchScript module that was saved. Raises ValueError for a bad workload,
    CompileError when scripting or tracing fails and ExportError when the training step fails.
    """
    if method not in METHODS:
        raise ValueError(f"method: {method!r} is not one of {list(METHODS)}")
    workload = make_workload(inputs, target, loss, optimizer, deterministic, seed, device,
                             description, source_model, autocast=autocast,
                             cuda_graphs=cuda_graphs, input_stage=input_stage)
    model = model.to(workload["device"]).train()
    try:
        if method == "script":
            module = torch.jit.script(model)
        else:
            example, _ = make_batch(workload)
            # Training-mode models may be random (dropout), so the trace's own check would fail.
            module = torch.jit.trace(model, tuple(example), check_trace=False)
    except Exception as e:
        raise CompileError(f"torch.jit.{method} failed: {type(e).__name__}: {e}") from e
    module.train()
    validate_step(module, workload, path)
    save_archive(module, path, workload)
    return module


def parse_json(text, where):
    """json.loads with one-line errors: ValueError naming ``where`` for a syntax error and for a
    document nested deeper than Python's parser can follow."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as e:
        raise ValueError(f"{where}: not valid JSON: {e}") from None


def load_module(path):
    """Loads any TorchScript archive onto the CPU; returns (module, text of its workload file or
    "" when it has none). Raises ValueError when the file is no loadable archive."""
    files = {WORKLOAD_FILE: ""}
    try:
        module = torch.jit.load(path, map_location="cpu", _extra_files=files)
    except Exception as e:
        raise ValueError(f"{path}: not a loadable TorchScript archive: {_first_line(e)}") from e
    text = files[WORKLOAD_FILE]
    return module, text.decode("utf-8") if isinstance(text, bytes) else text


def load_archive(path):
    """Loads an advisor archive; returns (module in training mode on the workload's device,
    validated workload). Raises ValueError when the file is no TorchScript archive or its workload
    is missing or invalid."""
    module, text = load_module(path)
    if not text:
        raise ValueError(f"{path}: the archive has no {WORKLOAD_FILE}")
    workload = parse_json(text, f"{path}: {WORKLOAD_FILE}")
    try:
        workload = validate_workload(workload)
    except ValueError as e:
        raise ValueError(f"{path}: {WORKLOAD_FILE}: {e}") from e
    return module.to(workload["device"]).train(), workload


# --------------------------------------------------------------------------------------------------
# Command line


def _cmd_show(args):
    _, workload = load_archive(args.archive)
    print(json.dumps(workload, indent=2))


def _cmd_check(args):
    if args.threads:
        torch.set_num_threads(args.threads)
    module, workload = load_archive(args.archive)
    loss = validate_step(module, workload, args.archive)
    print(f"{args.archive}: one training step ran, loss {loss:.4f}")
    if args.steps:
        times = time_steps(module, workload, args.steps, args.warmup)
        print(f"{len(times)} steps after {args.warmup} warm-up, {torch.get_num_threads()} "
              f"thread(s): median {statistics.median(times) * 1e3:.1f} ms, "
              f"min {min(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms")


def _cmd_embed(args):
    module, _ = load_module(args.archive)
    try:
        with open(args.workload, encoding="utf-8") as f:
            text = f.read()
    except (OSError, ValueError) as e:
        raise ValueError(f"{args.workload}: {e}") from e
    workload = parse_json(text, args.workload)
    try:
        workload = validate_workload(workload)
    except ValueError as e:
        raise ValueError(f"{args.workload}: {e}") from e
    module = module.to(workload["device"]).train()
    validate_step(module, workload, args.archive)
    save_archive(module, args.output, workload)
    print(f"wrote {args.output}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("show", help="print the workload embedded in an archive")
    p.add_argument("archive")
    p.set_defaults(run=_cmd_show)
    p = sub.add_parser("check", help="validate an archive and optionally time training steps")
    p.add_argument("archive")
    p.add_argument("--steps", type=int, default=0, help="timed training steps (default 0)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (default: "
                   "PyTorch's own choice)")
    p.set_defaults(run=_cmd_check)
    p = sub.add_parser("embed", help="write a copy of a TorchScript archive with a workload")
    p.add_argument("archive")
    p.add_argument("workload", help="a workload.json file")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(run=_cmd_embed)
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except (ValueError, ExportError) as e:
        print(f"advisor_export: error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    except (RuntimeError, MemoryError, OSError) as e:  # torch's or the system's, never a traceback
        print(f"advisor_export: error: {type(e).__name__}: {_first_line(e)}", file=sys.stderr)
        return 1
    return 0


def _one_line(text):
    return " ".join(text.split("\n"))


if __name__ == "__main__":
    sys.exit(main())
