"""The workload's host-side input stage (docs/workload.md, "input_stage") on the Python side:
validating the ``input_stage`` object, checking the model's input-stage method, and preparing a
batch with it. advisor_export.py uses it; advisor runs the stage itself (engine/torch/input_stage).
"""

import torch

INPUT_STAGE_KEYS = {"method", "workers", "pin_memory"}
MAX_WORKERS = 256  # engine/workload/input_stage_spec.h: kMaxInputWorkers
# Random ops without a generator argument read the process-wide generator, which advisor cannot
# seed per batch (engine/torch/seeded_method.cpp keeps the same list).
UNSEEDABLE_OPS = ("aten::rand_like", "aten::randn_like", "aten::randint_like", "aten::dropout",
                  "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout",
                  "aten::feature_alpha_dropout", "aten::rrelu", "aten::native_dropout")


def validate_input_stage(stage):
    """Checks the ``input_stage`` object; returns a copy with the defaults filled in."""
    where = "workload.input_stage"
    if not isinstance(stage, dict):
        raise ValueError(f"{where}: expected an object with \"method\", got {stage!r}")
    unknown = sorted(set(stage) - INPUT_STAGE_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(INPUT_STAGE_KEYS)}")
    if "method" not in stage:
        raise ValueError(f"{where}: missing \"method\"")
    if not isinstance(stage["method"], str) or not stage["method"]:
        raise ValueError(f"{where}.method: expected the name of a method of the model, got "
                         f"{stage['method']!r}")
    workers = stage.get("workers", 0)
    if isinstance(workers, bool) or not isinstance(workers, int) or not 0 <= workers <= MAX_WORKERS:
        raise ValueError(f"{where}.workers: expected an integer from 0 to {MAX_WORKERS}, got "
                         f"{workers!r}")
    pin = stage.get("pin_memory", False)
    if not isinstance(pin, bool):
        raise ValueError(f"{where}.pin_memory: expected true or false, got {pin!r}")
    return {"method": stage["method"], "workers": workers, "pin_memory": pin}


def check_method(module, workload):
    """Checks that the scripted ``module`` has the input-stage method the workload names, taking
    the inputs and the target and returning a tuple of as many tensors. Raises ValueError
    ``input_stage.method "NAME": ...``."""
    name = workload["input_stage"]["method"]
    where = f"input_stage.method \"{name}\""
    arity = len(workload["inputs"]) + 1
    count = len(workload["inputs"])
    expected = (f"{arity} tensors (the workload's {count} input{'' if count == 1 else 's'}, then "
                f"the target)")
    method = getattr(module, name, None)
    schema = getattr(method, "schema", None)
    if schema is None:
        raise ValueError(f"{where}: the model has no such method; define it on the model's class "
                         f"with @torch.jit.export (and script the model: tracing drops it)")
    arguments = len(schema.arguments) - 1  # after self
    if arguments != arity:
        plural = "" if arguments == 1 else "s"
        raise ValueError(f"{where}: takes {arguments} argument{plural}, expected {expected}")
    returned = schema.returns[0].type if schema.returns else None
    elements = returned.elements() if isinstance(returned, torch._C.TupleType) else None
    if elements is None or len(elements) != arity or not all(
            isinstance(t, torch._C.TensorType) for t in elements):
        raise ValueError(f"{where}: returns {returned}, expected a tuple of {expected}")
    graph = method.graph.copy()
    torch._C._jit_pass_inline(graph)
    for node in _all_nodes(graph.block()):
        if node.kind() in UNSEEDABLE_OPS:
            raise ValueError(f"{where}: {node.kind()} draws from the process-wide generator, which "
                             f"advisor cannot seed per batch; draw with "
                             f"torch.rand/randn/randint/bernoulli instead")


def _all_nodes(block):
    for node in block.nodes():
        yield node
        for inner in node.blocks():
            yield from _all_nodes(inner)


def prepare_batch(module, workload, inputs, target):
    """One batch of the input stage from the base host tensors, moved to the workload's device.
    advisor seeds each batch's random ops on its own; here they draw from the global generator."""
    method = getattr(module, workload["input_stage"]["method"])
    with torch.no_grad():
        batch = method(*inputs, target)
    device = torch.device(workload["device"])
    batch = [t.to(device) for t in batch]
    return batch[:-1], batch[-1]
