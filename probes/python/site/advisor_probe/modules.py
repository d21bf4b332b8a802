"""The model's module tree as advisor names it: instance paths like "blocks.3.mlp".

Wrappers add components to PyTorch's own names (DDP "module.", torch.compile "_orig_mod.", FSDP
"_fsdp_wrapped_module.", checkpointing "_checkpoint_wrapped_module.", Lightning Fabric
"_forward_module."). advisor drops them, so a path
names the user's module however it is wrapped; the outermost object at a path is the one that gets
the hooks (it is the one the parent calls). A module reached twice (shared) keeps its first path.
"""

import torch

def unshowable(path):
    """What in a module path advisor cannot show in its lines and its report, which name modules by
    path: "a control character" or "a lone surrogate" (not encodable as UTF-8); None if nothing."""
    for char in path:
        if ord(char) < 0x20:
            return "a control character"
        if 0xD800 <= ord(char) <= 0xDFFF:
            return "a lone surrogate"
    return None


# Attributes through which a wrapper holds the module it wraps.
_WRAPPED_ATTRIBUTES = {
    "module": ("DistributedDataParallel", "DataParallel"),
    "_orig_mod": ("OptimizedModule",),
    "_fsdp_wrapped_module": ("FullyShardedDataParallel",),
    "_checkpoint_wrapped_module": ("CheckpointWrapper",),
    # Fabric's setup(); it also holds the unwrapped model as `_original_module` where
    # `_forward_module` is a DDP or FSDP wrapper: reached twice, it keeps the first path.
    "_forward_module": ("_FabricModule",),
}


def type_name(module):
    cls = type(module)
    return cls.__module__ + "." + cls.__qualname__


def _wraps(parent, attribute):
    owners = _WRAPPED_ATTRIBUTES.get(attribute)
    return owners is not None and type(parent).__name__ in owners


def wrapped(module):
    """The module that `module` wraps (DDP's `module`, torch.compile's `_orig_mod`), or None."""
    for attribute in _WRAPPED_ATTRIBUTES:
        if _wraps(module, attribute):
            return module._modules.get(attribute)
    return None


def is_compiled(module):
    return type(module).__name__ == "OptimizedModule"


def compiled_reason(module, regional=None):
    """Why advisor must not look inside `module`, or None. `regional(module)`: whether a model
    torch.compile compiled can be measured inside by compiling its regions (regional.py)."""
    if is_compiled(module):
        if regional is not None and regional(module):
            return None
        return "compiled with torch.compile: measured as one leaf"
    if getattr(module, "_compiled_call_impl", None) is not None:
        return "compiled with Module.compile(): measured as one leaf"
    return None


def _has_own_forward(module):
    forward = getattr(type(module), "forward", None)
    return forward is not None and forward is not torch.nn.Module.forward


class ModuleTree:
    """Paths of one or more root modules. With several roots, each root's paths start with its
    class name (and an index where two roots share one). `regional`: as compiled_reason's."""

    def __init__(self, roots, regional=None):
        self.by_path = {}       # path -> outermost module object at that path
        self.info = {}          # path -> description sent to advisor
        self.compiled = {}      # path -> the torch.compile'd module (OptimizedModule) there
        self._regional = regional
        self._seen = set()
        if len(roots) == 1:
            self._walk(roots[0], "")
        else:
            self.info[""] = {"path": "", "type": "(several roots)", "parameters": 0,
                             "has_forward": False, "calls_submodules": True, "opaque": ""}
            names = [type(root).__name__ for root in roots]
            for i, root in enumerate(roots):
                name = names[i] if names.count(names[i]) == 1 else names[i] + str(i)
                self._walk(root, name)
                self.info[""]["parameters"] += self.info[name]["parameters"]

    def _walk(self, module, path):
        if id(module) in self._seen:
            return
        self._seen.add(id(module))
        outermost = path not in self.by_path
        if outermost:
            self.by_path[path] = module
            if is_compiled(module):
                self.compiled[path] = module
        parameters = sum(p.numel() for p in module.parameters(recurse=False))
        children = []
        for name, child in module.named_children():
            if child is None:
                continue
            if _wraps(module, name):
                # The wrapped module takes the wrapper's path; its children hang below it.
                self._walk(child, path)
                continue
            child_path = name if not path else path + "." + name
            self._walk(child, child_path)
            if child_path in self.info:
                children.append(child_path)
        entry = self.info.get(path)
        if entry is None:
            reason = compiled_reason(module, self._regional)
            entry = {"path": path, "type": type_name(module), "parameters": 0,
                     "has_forward": _has_own_forward(module), "calls_submodules": False,
                     "opaque": reason or "", "compiled": path in self.compiled}
            self.info[path] = entry
        elif not entry["opaque"] and compiled_reason(module, self._regional):
            entry["opaque"] = compiled_reason(module, self._regional)
        if not outermost:
            # An inner module at a wrapper's path: its class and forward are the user's.
            entry["type"] = type_name(module)
            entry["has_forward"] = entry["has_forward"] or _has_own_forward(module)
        entry["parameters"] += parameters + sum(self.info[c]["parameters"] for c in children)
        entry["calls_submodules"] = entry["calls_submodules"] or bool(children)

    def children_of(self, parent):
        """The modules a window on `parent` brackets: the parent itself (unless it is the root),
        its children, and for a child container without forward (ModuleList) the container's
        children, as the TorchScript front door does."""
        selected = [parent] if parent else []
        prefix = parent + "." if parent else ""
        direct = [p for p in self.info if p.startswith(prefix) and p != parent
                  and "." not in p[len(prefix):]]
        for path in direct:
            if self.info[path]["has_forward"]:
                selected.append(path)
            else:
                selected.extend(self.children_of(path)[1:] if path else [])
        return [p for p in selected if p in self.by_path and not self._inside_opaque(p)]

    def every_module(self):
        """Every module but those inside a compiled one: a window on every module keeps the
        script's compilation (regions are compiled only for a level's window)."""
        return [p for p in self.by_path if p and not self._inside_opaque(p, self.compiled)]

    def _inside_opaque(self, path, compiled=()):
        """Whether an ancestor of `path` must not be looked into (hooks there break compiled
        graphs): an opaque one, or one of `compiled`."""
        while path:
            path = path.rsplit(".", 1)[0] if "." in path else ""
            entry = self.info.get(path)
            if entry is not None and (entry["opaque"] or path in compiled):
                return True
        return False

    def describe(self):
        return list(self.info.values())


def parameter_paths(tree):
    """id(parameter) -> the path of the instance that holds it itself (the first path of a shared
    one); empty without a tree."""
    paths = {}
    for path, module in (tree.by_path.items() if tree is not None else ()):
        for parameter in module.parameters(recurse=False):
            paths.setdefault(id(parameter), path)
    return paths


def parameters(tree):
    """Every parameter of the tree's modules, once; none without a tree."""
    found = {}
    for module in (tree.by_path.values() if tree is not None else ()):
        for parameter in module.parameters(recurse=False):
            found.setdefault(id(parameter), parameter)
    return list(found.values())


def parameter_ids(optimizers):
    ids = set()
    for optimizer in optimizers:
        for group in optimizer.param_groups:
            for parameter in group["params"]:
                ids.add(id(parameter))
    return ids


def choose_roots(candidates, trained):
    """The outermost modules called in a step that own parameters the optimizers train; with none,
    the largest candidate."""
    roots = [m for m in candidates if any(id(p) in trained for p in m.parameters())]
    if roots:
        return roots
    with_parameters = [m for m in candidates if any(True for _ in m.parameters())]
    if not with_parameters:
        return []
    return [max(with_parameters, key=lambda m: sum(p.numel() for p in m.parameters()))]
