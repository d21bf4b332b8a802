"""What the zoo's case modules share: tensor specs, optimizers and the two sizes.

Every case module in ``cases/`` defines ``build(size)``, where size is ``"cpu"`` or ``"cuda"``, and
returns ``(model, workload)``: an ``nn.Module`` and the keyword arguments of
``advisor_export.export`` for it (inputs, target, loss, optimizer, deterministic, description).
The CPU size runs a training step in a fraction of a second on one core; the GPU size is large
enough for a GPU to show the planted problem. A case that has no meaning on one device says so in
its ``.expected.json`` ("skip") and its ``build`` is not called for that size. A case with a fixed
variant takes ``build(size, fixed=False)``: ``fixed=True`` is the same model with the planted cost
removed (its ``.expected.json`` says what changes, under "fixed"), the after of a diff pair
(scripts/zoo/diff_pairs.py).
"""

SIZES = ("cpu", "cuda")

SGD = {"name": "sgd", "lr": 0.01, "momentum": 0.9}


def floats(*shape, dtype="float32"):
    """A random-normal input spec."""
    return {"shape": list(shape), "dtype": dtype, "init": "randn"}


def classes(batch, count):
    """A class-index target spec for cross-entropy."""
    return {"shape": [batch], "dtype": "int64", "init": "randint", "high": count}


def workload(inputs, target, description, optimizer=None, deterministic=False,
             loss="cross_entropy"):
    """The export keyword arguments of one case; SGD with momentum unless ``optimizer`` says."""
    return {"inputs": inputs, "target": target, "loss": loss, "optimizer": optimizer or SGD,
            "deterministic": deterministic, "description": description}


def archive_name(name, fixed=False):
    """The file a case is exported to: NAME.pt, or NAME.fixed.pt for its fixed variant."""
    return name + (".fixed.pt" if fixed else ".pt")


def pick(size, cpu, cuda):
    """``cpu`` or ``cuda`` by size, so a case states both sizes side by side."""
    if size not in SIZES:
        raise ValueError(f"size: {size!r} is not one of {SIZES}")
    return cpu if size == "cpu" else cuda
