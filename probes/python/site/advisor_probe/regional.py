"""Regional compilation: how advisor measures module instances inside a torch.compile'd model.

The whole model compiled is one region, and advisor's module markers cannot sit inside it (hooks
there break or recompile its graphs). So while a window measures the children of a module P
inside a compiled model C, the probe changes the compilation for that window:

- C and the modules on the path from C down to P run eagerly (C's forward calls its `_orig_mod`),
  so the markers around P's children are plain module hooks;
- every module hanging off that path (P's children, and each ancestor's other children) is
  compiled on its own with the options the script gave torch.compile (backend, mode, dynamic,
  fullgraph, options): its forward, not its call, so that its hooks stay outside the region.

Instances of one class share their compiled graph where dynamo's guards allow (an attribute the
forward reads as a constant, a block's index, compiles one graph per instance): dynamo's
recompile limit is raised by the number of regions for the window, so that no instance past the
limit runs eagerly unseen.

The compilation happens in the window's warm-up step, which advisor never measures; the compile
report counts those compilations apart (compile_report.py: `regional`). A region dynamo cannot
compile alone (fullgraph=True over a graph break, a backend error) runs eagerly for the rest of the
window, and the report names it with dynamo's reason. After the window the user's compilation is
back as it was: the whole model's graphs are still cached and guard on nothing that changed.
"""

_ABSENT = object()


def _compile_errors():
    """The exceptions dynamo raises where it cannot compile a region (not the user's own)."""
    from torch._dynamo.exc import TorchDynamoException
    return (TorchDynamoException,)


def _set_forward(module, forward):
    """Sets `module`'s forward as an instance attribute and returns how to put the previous one
    back (an instance attribute the script or torch.compile set, or the class's)."""
    previous = module.__dict__.get("forward", _ABSENT)
    module.forward = forward

    def restore():
        if previous is _ABSENT:
            del module.forward
        else:
            module.forward = previous
    return restore


def raise_recompile_limit(by):
    """Raises dynamo's recompile limit (`recompile_limit`, `cache_size_limit` before torch 2.6)
    by `by` and returns what puts it back."""
    from torch._dynamo import config
    name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    previous = getattr(config, name)
    setattr(config, name, previous + by)
    return lambda: setattr(config, name, previous)


def repeated_blocks(roots):
    """The blocks torch's regional compilation compiles one by one (the autotest's
    torch-compile-regional, knobs.py): the members of each root's largest ModuleList or Sequential,
    by parameters, of two or more modules of one class (a transformer's layers); [] where a root
    has none."""
    import torch

    blocks = []
    for root in roots:
        largest, largest_size = [], 0
        for module in root.modules():
            if not isinstance(module, (torch.nn.ModuleList, torch.nn.Sequential)):
                continue
            members = list(module.children())
            if len(members) < 2 or len({type(member) for member in members}) != 1:
                continue
            size = sum(parameter.numel() for parameter in module.parameters())
            if size > largest_size:
                largest, largest_size = members, size
        blocks.extend(largest)
    return blocks


def compiled_ancestor(tree, path):
    """The path of the compiled module (tree.compiled) at or above `path`, or None."""
    while True:
        if path in tree.compiled:
            return path
        if not path:
            return None
        path = path.rsplit(".", 1)[0] if "." in path else ""


def path_down(top, path):
    """The paths from `top` down to `path`, both included ("a", "a.b.c" -> a, a.b, a.b.c)."""
    paths = [top]
    rest = path[len(top):].lstrip(".") if top else path
    for name in rest.split(".") if rest else []:
        paths.append(paths[-1] + "." + name if paths[-1] else name)
    return paths


def regions(tree, top, parent):
    """The modules compiled alone while the children of `parent` (inside the compiled module at
    `top`) are measured: every child of a module on the path from `top` to `parent`, less the
    path itself."""
    path = path_down(top, parent)
    on_path = set(path)
    found = []
    for module_path in path:
        for child in tree.children_of(module_path):
            if child not in on_path and child not in found:
                found.append(child)
    return found


class _EagerSwitch:
    """The forward of a compiled model, set once when the model is found: the script's compiled
    forward, or while `eager` its own module's call. Set in advance because a command arrives in
    the model's forward pre-hook, after its call has looked its forward up: a forward replaced
    then would run from the next step, a measured one, instead of the warm-up step."""

    def __init__(self, compiled_model):
        self.eager = False
        self._whole = compiled_model.forward
        self._module = compiled_model._orig_mod
        compiled_model.forward = self

    def __call__(self, *args, **kwargs):
        if self.eager:
            return self._module(*args, **kwargs)
        return self._whole(*args, **kwargs)


class RegionalCompiler:
    """Arranges regional compilation for one window; `recorder` (a CompileRecorder) holds the
    script's compile options and counts the compilations."""

    def __init__(self, recorder):
        self._recorder = recorder
        self._switches = {}  # id(compiled model) -> its _EagerSwitch

    def prepare(self, tree):
        """Readies the compiled models of the tree whose options are known, once the model is
        found."""
        for compiled_model in tree.compiled.values():
            if self._recorder.options_of(compiled_model) is not None:
                self._switches[id(compiled_model)] = _EagerSwitch(compiled_model)

    def arrange(self, tree, parent):
        """Compiles the regions of a window on `parent`'s children where `parent` is inside a
        compiled model; returns what undoes it (None where nothing changes)."""
        top = compiled_ancestor(tree, parent)
        if top is None:
            return None
        compiled_model = tree.compiled[top]
        options = self._recorder.options_of(compiled_model)
        switch = self._switches.get(id(compiled_model))
        if options is None or switch is None:
            return None  # its children were never offered: it is an opaque leaf (modules.py)
        switch.eager = True
        undo = [lambda: setattr(switch, "eager", False)]
        alone = [path for path in regions(tree, top, parent)
                 if path not in tree.compiled]  # one the script compiled alone stays so
        undo.append(raise_recompile_limit(len(alone)))
        for path in alone:
            module = tree.by_path[path]
            undo.append(_set_forward(module, self._region(path, module.forward, options)))
        self._recorder.regional_starts(parent)

        def restore():
            for step in reversed(undo):
                step()
            self._recorder.regional_ends()
        return restore

    def _region(self, path, forward, options):
        compiled = self._recorder.compile_function(forward, options)
        recorder = self._recorder
        state = {"eager": False}

        def region(*args, **kwargs):
            if state["eager"]:
                return forward(*args, **kwargs)
            try:
                return compiled(*args, **kwargs)
            except _compile_errors() as error:
                state["eager"] = True
                recorder.region_runs_eagerly(path, "%s: %s" % (type(error).__name__, error))
                return forward(*args, **kwargs)
        return region
