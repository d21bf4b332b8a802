"""Which module instance's backward was running when an error stopped the autograd engine, read
from the graph the error left behind (docs/memory.md, "Out of memory").

A backward runs in the autograd engine, whose frames are not Python's: the stack at the raise
names no module. The graph does. The engine frees a node's saved tensors once the node has run
(without retain_graph), and not those of a node that raised: the node that failed is the one
latest in the forward's order (its sequence number, torch 2.x; on 1.13, which has none, the first
in an order that puts every node after those whose gradients feed it) that still holds its saved
tensors. Its instance is told by the parameters around it: those it reads itself (through a
transpose, a view or autocast's cast), else the instance around the nearest parameterised ops on
either side of it in the graph.

The same graph tells what the failure held for the backward: every node not yet run still holds
the tensors it saved, each owned by the instance its node belongs to (kept_for_backward).

Where it cannot tell it says so: a backward that keeps its graph (retain_graph=True) frees nothing
as it runs, so the node that failed is not the latest holding its tensors. torch.autograd.grad,
and a backward given `inputs`, run only the nodes between the outputs and those inputs: the
others hold their tensors without being pending, and are left out.
"""

import collections
import os

import torch

_SINGLE_INPUT_HOPS = 3  # a parameter read through t(), view() and autocast's cast is its op's own


_ENGINE_CALLS = ("backward", "grad")  # Tensor.backward, torch.autograd.backward and .grad


def is_engine_call(code):
    """True for the frame of torch's own call into the autograd engine."""
    if code.co_name not in _ENGINE_CALLS:
        return False
    filename = os.path.abspath(code.co_filename)
    return any(("torch" + os.sep + part) in filename for part in ("autograd", "_tensor.py"))


def _tensors_in(value):
    """The tensors a local holds: itself, or those of a tuple, a list or a dict's values."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


def _nodes_of(tensors, into):
    for tensor in tensors:
        node = tensor.grad_fn
        if node is not None and not any(node is n for n in into):
            into.append(node)
    return into


def _engine_frames(frames):
    return [frame for frame in frames if is_engine_call(frame.f_code)]


def roots_of(frames):
    """The grad_fn nodes the backward started from: the tensors torch's engine call was given, as
    the frames of `Tensor.backward`, `torch.autograd.backward` (tensors) and
    `torch.autograd.grad` (outputs) hold them."""
    roots = []
    for frame in _engine_frames(frames):
        for name in ("tensors", "self", "outputs"):
            _nodes_of(_tensors_in(frame.f_locals.get(name)), roots)
    return roots


def _innermost_local(frames, name):
    """The local `name` of the innermost engine frame that has one (torch.autograd's backward or
    grad, after they default retain_graph to create_graph), else None."""
    for frame in reversed(_engine_frames(frames)):
        if name in frame.f_locals:
            return frame.f_locals[name]
    return None


def held_roots(frames):
    """The grad_fn nodes of every tensor the stack's frames hold: the graph the forward built so
    far (a failure in the forward) or the one the backward runs over, with any other graph a
    frame still holds (a second loss, a retained one)."""
    roots = []
    for frame in frames:
        for value in list(frame.f_locals.values()):
            _nodes_of(_tensors_in(value), roots)
    return roots


def _inputs(node):
    return [child for child, _ in getattr(node, "next_functions", ()) if child is not None]


def _walk(roots):
    """Every node reachable from the roots, each after all of its parents (the nodes whose
    gradients feed it: an order the engine could have run them in), and each node's parents."""
    reached, parents, seen = [], {}, {id(root) for root in roots}
    pending = collections.deque(roots)
    while pending:
        node = pending.popleft()
        reached.append(node)
        for child in _inputs(node):
            parents.setdefault(id(child), []).append(node)
            if id(child) not in seen:
                seen.add(id(child))
                pending.append(child)
    waiting = {id(node): len(parents.get(id(node), ())) for node in reached}
    order, ready = [], collections.deque(n for n in reached if waiting[id(n)] == 0)
    while ready:
        node = ready.popleft()
        order.append(node)
        for child in _inputs(node):
            waiting[id(child)] -= 1
            if waiting[id(child)] == 0:
                ready.append(child)
    return order, parents


def _saved_tensors(node):
    """The tensors the node still holds for its backward; [] where they were freed (it ran) or it
    saved none. Reading one runs the unpack hook it was saved with, if any."""
    tensors = []
    names = [n for n in dir(node) if n.startswith("_saved_")]
    if hasattr(node, "saved_tensors"):  # a Python autograd.Function's node
        names.append("saved_tensors")
    for name in names:
        try:
            value = getattr(node, name)
        except Exception:  # noqa: BLE001 ("... after they have already been freed", or a hook's)
            return []
        tensors.extend(_tensors_in(value))
    return tensors


def _sequence(node):
    sequence_nr = getattr(node, "_sequence_nr", None)  # torch 2.x; 1.13's nodes have none
    return sequence_nr() if sequence_nr is not None else None


def _forward_order(order):
    """The nodes latest in the forward first: by sequence number, else the order given (each
    node after those whose gradients feed it)."""
    if order and _sequence(order[0]) is not None:
        return sorted(order, key=_sequence, reverse=True)
    return order


def failed_node(order):
    """Of the graph's nodes (each after its parents), the one that was running when the engine
    stopped, or None: the latest in the forward's order still holding its saved tensors, or
    without sequence numbers the first of the order (whose parents all ran)."""
    # The first that holds: the nodes after it are not unpacked (a hook, such as checkpoint's,
    # may recompute a forward to unpack).
    return next((node for node in _forward_order(order) if _saved_tensors(node)), None)


def _between(order, parents, inputs):
    """The nodes the engine runs to reach `inputs` (torch.autograd.grad's, or backward's given
    ones): those above an input's own node (a leaf's AccumulateGrad, else its grad_fn)."""
    leaves = {id(t) for t in inputs if t.grad_fn is None}
    targets = [t.grad_fn for t in inputs if t.grad_fn is not None]
    targets += [n for n in order if id(getattr(n, "variable", None)) in leaves]
    above, pending = set(), collections.deque(targets)
    while pending:
        for parent in parents.get(id(pending.popleft()), ()):
            if id(parent) not in above:
                above.add(id(parent))
                pending.append(parent)
    return [node for node in order if id(node) in above]


def _own_path(node, parameter_paths):
    """The instance of the parameters the node reads, or None."""
    for child in _inputs(node):
        for _ in range(_SINGLE_INPUT_HOPS):
            if child is None:
                break
            variable = getattr(child, "variable", None)  # AccumulateGrad: a leaf's gradient
            if variable is not None:
                path = parameter_paths.get(id(variable))
                if path is not None:
                    return path
                break
            inputs = _inputs(child)
            child = inputs[0] if len(inputs) == 1 else None
    return None


_NEAREST_NODES = 256  # how far a node's search for a parameterised neighbour goes, each way


def _nearest_own_path(start, neighbours, parameter_paths):
    """The instance of the nearest node after `start` (breadth first over `neighbours`, within
    _NEAREST_NODES) that reads parameters, or None."""
    pending, seen = collections.deque(neighbours(start)), {id(start)}
    while pending and len(seen) <= _NEAREST_NODES:
        node = pending.popleft()
        if id(node) in seen:
            continue
        seen.add(id(node))
        path = _own_path(node, parameter_paths)
        if path is not None:
            return path
        pending.extend(neighbours(node))
    return None


def _parent(path):
    return path.rpartition(".")[0]


def _common(a, b):
    common = []
    for x, y in zip(a.split("."), b.split(".")):
        if x != y:
            break
        common.append(x)
    return ".".join(common)


def instance_of(node, parents, parameter_paths):
    """The path of the instance a node of the graph belongs to; "" where the graph does not tell.
    `parents` maps id(node) to the nodes whose gradients feed it (_walk's)."""
    own = _own_path(node, parameter_paths)
    if own is not None:
        return own
    earlier = _nearest_own_path(node, _inputs, parameter_paths)  # before it in the forward
    later = _nearest_own_path(node, lambda n: parents.get(id(n), []), parameter_paths)
    if earlier is None:
        return later or ""
    # Between two ops of one instance (an activation between its two Linears, attention's
    # softmax between its projections): that instance. Else the one around the op before it.
    inside = _parent(earlier)
    if later is not None and len(_common(earlier, later)) >= len(inside):
        return _common(earlier, later)
    return inside or earlier


RETAINED = ("the backward keeps its graph (retain_graph=True): the engine frees no saved tensors "
            "as it runs, so which op failed, and in which instance, cannot be told")


def running_instance(frames, parameter_paths):
    """(path, note): the path of the instance whose backward was running where the backward in
    `frames` (the traceback's, outermost first) stopped, "" where the graph does not tell, and
    why not where that is known. `parameter_paths` maps id(parameter) to the path of the
    instance that owns it."""
    if _innermost_local(frames, "retain_graph"):
        return "", RETAINED
    roots = roots_of(frames)
    if not roots or not parameter_paths:
        return "", ""
    order, parents = _walk(roots)
    inputs = _tensors_in(_innermost_local(frames, "inputs"))
    node = failed_node(_between(order, parents, inputs) if inputs else order)
    if node is None:
        return "", ""
    return instance_of(node, parents, parameter_paths), ""


def _storage_of(tensor):
    """(address, bytes) of the memory the tensor views; None for one without (sparse, meta)."""
    try:
        storage = tensor.untyped_storage() if hasattr(tensor, "untyped_storage") \
            else tensor.storage()  # torch 1.13
        return storage.data_ptr(), storage.nbytes()
    except (RuntimeError, NotImplementedError):
        return None


def kept_for_backward(frames, parameter_paths, parameters):
    """What the graphs the stack holds keep for their backward, by instance: [[path, bytes,
    tensors]], most first; path "" for what no instance owns. Each storage counts once, for the
    node earliest in the forward that saved it (the op that made it, or the first to read it);
    the parameters' (`parameters`) are not the graph's."""
    order, parents = _walk(held_roots(frames))
    claimed = {_storage_of(p) for p in parameters}
    by_path, instances = {}, {}
    for node in reversed(_forward_order(order)):
        for tensor in _saved_tensors(node):
            storage = _storage_of(tensor)
            if storage is None or storage[0] == 0 or storage in claimed:
                continue
            claimed.add(storage)
            if id(node) not in instances:
                instances[id(node)] = instance_of(node, parents, parameter_paths)
            held = by_path.setdefault(instances[id(node)], [instances[id(node)], 0, 0])
            held[1] += storage[1]
            held[2] += 1
    return sorted(by_path.values(), key=lambda held: -held[1])
