"""Which module instance each kernel of a torch.compile'd graph computes (issue #29): time inside a
compiled model by instance, from inductor's own kernels rather than from regional compilation.

For each graph inductor compiles (a frame's forward and, from its first backward, its backward),
two things are read while it compiles, and put together as one table per graph:

- the post-grad FX graph's nodes and the instance each belongs to: a forward node's
  `nn_module_stack`, and a backward node's `fwd_nn_module_stack`, which AOTAutograd copies from the
  forward node of the same autograd sequence number (`copy_fwd_metadata_to_bw_nodes`, torch 2.1
  on). Read by a post-grad custom pass (`post_grad_custom_post_pass`), which inductor runs on
  both graphs; a plain function there also keeps inductor from answering from its FX graph cache
  (it cannot hash one), so that each graph is compiled, and read, in this process.
- the kernels of the graph's output code and the nodes each computes: inductor writes before each
  generated kernel's definition, and before each call of an extern kernel (a matrix multiply, a
  convolution, an ATen fallback), a comment `# Topologically Sorted Source Nodes: [a, b, ...]`
  naming the nodes by their source (a node's `from_node[0]` where it has one, else its own name),
  the names the table keys its nodes by. The code comes from inductor's `output_code` log.
- an extern call without that comment (inductor writes none before an in-place scatter's or
  index_put_'s fallback, as the deterministic backward of a gather becomes): its nodes are the
  `origins` of the IR node inductor lowered it from, the FX nodes every IR node keeps. They are
  read, when the `output_code` log fires, from the graph being compiled (`V.graph`): its
  scheduler's extern nodes, each keyed by the buffer its call writes (its output, or the buffer
  it mutates in place), which the call's line names (`bufN = ...`, `out=bufN`, else its first
  argument). Each extern call says which named its nodes (`nodes_from`).

A kernel's nodes that sit in several instances are split in proportion to its nodes: each
instance holds the share of the kernel's source nodes that are its own (advisor reports such a
kernel as shared). Nodes without an instance (a pattern's replacement) hold the rest, unattributed.
The table (`tables()`) is bounded below what advisor accepts
(engine/analysis/compiled_provenance.cpp); every name inside torch this reads is in this file.
"""

import logging
import re

MAX_GRAPHS = 64
MAX_KERNELS = 4096  # per graph: kernels defined and extern calls, each
MAX_INSTANCES = 16  # per kernel: the instances with most nodes kept, the rest unattributed
PATH_BYTES = 1024
NAME_BYTES = 256

_SOURCE_NODES = re.compile(r"^\s*# (?:Topologically Sorted |Unsorted )?Source Nodes: \[(.*?)\]")
_DEFINITION = re.compile(r"^(\w+) = async_compile\.\w+\(")
# An extern call: `extern_kernels.mm(...)`, `buf2 = torch.ops.aten.foo.default(...)`, and the
# in-place fallbacks' `aten.scatter_reduce_.two(buf3, ...)` and `aten.index_put_(buf3, ...)`.
_EXTERN_CALL = re.compile(r"^\s*(?:\w+ = )?(?:extern_kernels\.(\w+)|(?:torch\.ops\.)?aten\.(\w+)"
                          r"(?:\.\w+)?)\(")
# The buffer an extern call's line writes: the name it assigns, its `out=` (a view of it too), else
# (an in-place fallback) its first argument.
_ASSIGNED = re.compile(r"^\s*(\w+) = ")
_OUT = re.compile(r"\bout=(?:reinterpret_tensor\()?(\w+)")
_FIRST_ARGUMENT = re.compile(r"\(\s*(\w+)")
# dynamo's names of a module in nn_module_stack: "L['self'].blocks[0].attn",
# "L['self']._modules['blocks']._modules['0']", "L['fn'].0.fc1"; the root is the compiled module.
_ROOT = re.compile(r"^[LG]\[['\"][^'\"]*['\"]\]")
_MODULES_ITEM = re.compile(r"\._modules\[['\"]([^'\"]*)['\"]\]")
_ITEM = re.compile(r"\[['\"]?([^'\"\]]*)['\"]?\]")


def instance_path(dynamo_name):
    """The module's path in the compiled module ("blocks.0.attn") from dynamo's name of it."""
    path = _ROOT.sub("", dynamo_name, count=1)
    path = _MODULES_ITEM.sub(r".\1", path)
    path = _ITEM.sub(r".\1", path)
    return path.lstrip(".")


def node_instance(meta):
    """The innermost module instance of a post-grad node's metadata, None where it has none."""
    stack = meta.get("nn_module_stack") or meta.get("fwd_nn_module_stack")
    if not stack:
        return None
    innermost = list(stack.values())[-1]
    name = innermost[0] if isinstance(innermost, tuple) else innermost
    return instance_path(str(name))[:PATH_BYTES] if name is not None else None


def source_name(node):
    """The name inductor's comments give `node` (torch/_inductor/utils.py, the kernel metadata):
    its first `from_node`'s, else its own."""
    origins = node.meta.get("from_node")
    if origins:
        return getattr(origins[0], "name", node.name)
    return node.name


def graph_nodes(graph):
    """(direction, {source name: [instance or None per post-grad node]}) of a post-grad graph; a
    graph with a `tangents_` input (the loss's gradient) is a backward graph."""
    backward = False
    sources = {}
    for node in graph.nodes:
        if node.op == "placeholder":
            backward = backward or node.name.startswith("tangents_")
            continue
        if node.op != "call_function":
            continue
        sources.setdefault(source_name(node), []).append(node_instance(node.meta))
    return ("backward" if backward else "forward"), sources


def written_buffer(line, call):
    """The key of the buffer an extern call's line writes: ("output", the name it assigns or its
    `out=`), else ("mutated", the first argument of the call whose parenthesis opens at `call`:
    an in-place fallback's); None where it has none."""
    for pattern in (_ASSIGNED, _OUT):
        match = pattern.search(line)
        if match:
            return "output", match.group(1)
    match = _FIRST_ARGUMENT.match(line, call)
    return ("mutated", match.group(1)) if match else None


def parse_output_code(code):
    """(kernels, extern calls) of inductor's output code: {kernel name: [source names]} for each
    generated kernel defined with the comment before it, and [(ATen op, [source names], the key of
    the buffer it writes)] for each extern kernel called, in the order the graph calls them (one
    without the comment with no names: its IR node's origins may name them, else advisor matches
    the calls by their order alone)."""
    kernels, calls = {}, []
    pending = None
    for line in code.splitlines():
        match = _SOURCE_NODES.match(line)
        if match:
            pending = [name.strip() for name in match.group(1).split(",") if name.strip()]
            continue
        if line.lstrip().startswith("#"):
            continue
        definition = _DEFINITION.match(line)
        extern = _EXTERN_CALL.match(line)
        if definition and pending is not None and len(kernels) < MAX_KERNELS:
            kernels[definition.group(1)[:NAME_BYTES]] = pending
        elif extern and len(calls) < MAX_KERNELS:
            calls.append(("aten::" + (extern.group(1) or extern.group(2)), pending or [],
                          written_buffer(line, extern.end() - 1)))
        pending = None
    return kernels, calls


class ExternOrigins:
    """The origins (FX nodes) of a compiled graph's extern IR nodes, by the buffer each call writes:
    its output's name, and each buffer it mutates in place. Several calls that mutate one buffer
    are taken in the order the code calls them, which is the scheduler's order that this keeps."""

    def __init__(self, extern_nodes):
        self._origins = []
        self._by_key = {}
        for node in extern_nodes:
            index = len(self._origins)
            self._origins.append(list(getattr(node, "origins", None) or []))
            keys = [("output", node.get_name())]
            keys += [("mutated", name) for name in node.get_mutation_names()]
            for key in keys:
                self._by_key.setdefault(key, []).append(index)
        self._taken = set()

    def take(self, key):
        """The origins of the first extern node not yet taken that writes `key`, [] where none."""
        for index in self._by_key.get(key, ()):
            if index not in self._taken:
                self._taken.add(index)
                return self._origins[index]
        return []


def compiling_graph_externs():
    """ExternOrigins of the graph inductor is compiling (V.graph, while it logs the output code),
    in its scheduler's order; None where this torch has no such graph."""
    try:
        from torch._inductor.virtualized import V
        scheduled = V.graph.scheduler.nodes
        return ExternOrigins(node.node for node in scheduled if node.is_extern())
    except Exception:  # noqa: BLE001 (another inductor: the comments alone name the nodes)
        return None


def origin_names(origins, sources):
    """The source names of an IR node's origins (post-grad FX nodes), each once; a node the
    post-grad pass did not see (made after it) is added to `sources` with its own instance."""
    names = []
    for node in origins:
        if getattr(node, "op", None) != "call_function":
            continue
        name = source_name(node)
        if name not in names:
            names.append(name)
            sources.setdefault(name, [node_instance(node.meta)])
    return names


def kernel_entry(names, sources):
    """A kernel's instances with their nodes (each source node counted once, split evenly among
    the post-grad nodes it became) and its node total (0 for an extern call without names)."""
    held = {}
    total = 0
    for name in names:
        instances = sources.get(name) or [None]
        total += 1
        for instance in instances:
            if instance is not None:
                held[instance] = held.get(instance, 0.0) + 1.0 / len(instances)
    ranked = sorted(held.items(), key=lambda item: -item[1])[:MAX_INSTANCES]
    return {"nodes": total,
            "instances": [{"path": path, "nodes": round(nodes, 4)} for path, nodes in ranked]}


def extern_entry(op, names, written, sources, externs):
    """An extern call's row: its nodes from its Source Nodes comment, else from its IR node's
    origins (`nodes_from` says which, "none" where neither names any)."""
    origins = externs.take(written) if externs is not None and written is not None else []
    nodes_from = "comment" if names else "none"
    if not names:
        names = origin_names(origins, sources)
        nodes_from = "ir_origins" if names else "none"
    return dict(op=op[:NAME_BYTES], nodes_from=nodes_from, **kernel_entry(names, sources))


def graph_table(direction, sources, code, externs=None):
    kernels, calls = parse_output_code(code)
    return {"direction": direction,
            "kernels": [dict(name=name, **kernel_entry(names, sources))
                        for name, names in kernels.items()],
            "extern_calls": [extern_entry(op, names, written, sources, externs)
                             for op, names, written in calls]}


class _OutputCode(logging.Handler):
    def __init__(self, recorder):
        super().__init__(logging.DEBUG)
        self._recorder = recorder

    def emit(self, record):
        try:
            if isinstance(record.msg, str) and record.msg.startswith("Output code: "):
                self._recorder.code_written(str(record.args[0]) if record.args else "",
                                            compiling_graph_externs())
        except Exception:  # noqa: BLE001 (a log record must never fail the user's compile)
            pass


class ProvenanceRecorder:
    """Records a table per compiled graph from `install()` on; `tables()` is what advisor reads."""

    def __init__(self):
        self._tables = []
        self._pending = None  # the post-grad graph whose output code comes next
        self.paused = False  # while advisor's own graphs compile (regional.py's regions)

    def install(self):
        import torch._inductor.config as config
        import torch._inductor.graph  # noqa: F401 (registers the output_code logger)
        from torch._logging._internal import log_registry
        users = config.post_grad_custom_post_pass
        recorder = self

        def read_nodes(graph):
            if users is not None:
                users(graph)
            try:
                recorder._pending = None if recorder.paused else graph_nodes(graph)
            except Exception:  # noqa: BLE001 (never fail the user's compile)
                recorder._pending = None

        config.post_grad_custom_post_pass = read_nodes
        handler = _OutputCode(self)
        for name in log_registry.get_artifact_log_qnames():
            log = logging.getLogger(name)
            if getattr(log, "artifact_name", "") == "output_code" and handler not in log.handlers:
                if log.getEffectiveLevel() > logging.DEBUG:
                    log.setLevel(logging.DEBUG)
                    log.propagate = False  # the user did not ask for it: torch's handlers stay quiet
                log.addHandler(handler)

    def code_written(self, code, externs=None):
        if self._pending is None or len(self._tables) >= MAX_GRAPHS:
            return
        direction, sources = self._pending
        self._pending = None
        self._tables.append(graph_table(direction, sources, code, externs))

    def tables(self):
        return list(self._tables)
