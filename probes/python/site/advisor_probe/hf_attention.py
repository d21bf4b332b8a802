"""The hf-sdpa-attention knob (docs/recipes.md): the script's transformers models that run eager
attention, which materialises the score matrix, switched to scaled_dot_product_attention through
transformers' own switch, `set_attn_implementation`, once the model is known. Never by editing
the script: the change the user makes is `attn_implementation="sdpa"` where the model is loaded.

A transformers with set_attn_implementation (5.x, and 4.x since mid-2025) reads the
configuration's choice at every forward (the attention interface and the mask both), so a built
model switches; older releases pick the attention class when the model is built, and a model
there cannot be switched from outside."""

import sys


def _transformers():
    """The transformers the script imported; None where it imported none (nothing to switch,
    and importing it here would cost the script seconds)."""
    return sys.modules.get("transformers")


def eager_models(roots):
    """The outermost transformers PreTrainedModels in `roots` whose configuration says "eager":
    an outer model's switch reaches the models nested in it."""
    transformers = _transformers()
    if transformers is None:
        return []
    found, inside = [], set()
    for root in roots:
        for module in root.modules():
            if id(module) in inside or not isinstance(module, transformers.PreTrainedModel):
                continue
            if getattr(module.config, "_attn_implementation", None) == "eager":
                found.append(module)
                inside.update(id(m) for m in module.modules())
    return found


def _why_not_switchable(model):
    """Why transformers cannot switch `model` to SDPA once built; "" where it can."""
    name = type(model).__name__
    version = getattr(_transformers(), "__version__", "?")
    if not hasattr(model, "set_attn_implementation"):
        return ("transformers %s picks %s's attention when it builds the model (no "
                "set_attn_implementation)" % (version, name))
    can_set = getattr(model, "_can_set_attn_implementation", None)
    if can_set is not None and not can_set():
        return ("transformers %s cannot switch %s's attention after it is built (its attention "
                "does not go through the attention interface)" % (version, name))
    if not getattr(model, "_supports_sdpa", False):
        return "%s has no SDPA attention in transformers %s" % (name, version)
    return ""


def not_switchable(roots):
    """Why the knob has nothing to switch in this script; "" where every eager model switches."""
    if _transformers() is None:
        return "the script's model is not a transformers model (the script imported no transformers)"
    models = eager_models(roots)
    if not models:
        return "the script's model has no transformers PreTrainedModel whose attention is \"eager\""
    for model in models:
        reason = _why_not_switchable(model)
        if reason:
            return reason + ": load it with attn_implementation=\"sdpa\" instead"
    return ""


def switch(roots, implementation):
    """Switches every eager transformers model in `roots` to `implementation` ("sdpa")."""
    for model in eager_models(roots):
        model.set_attn_implementation(implementation)
        if model.config._attn_implementation != implementation:
            raise RuntimeError("transformers left %s's attention at %r when advisor asked for %r"
                               % (type(model).__name__, model.config._attn_implementation,
                                  implementation))
