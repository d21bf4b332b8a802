"""scaled_dot_product_attention's backends, each behind a switch and a query in
torch.backends.cuda: one table for the knob a process is started with (knobs.py) and for the
one switched between the steps of a running script (blocks.py)."""

import torch

_SWITCHES = {"flash": ("enable_flash_sdp", "flash_sdp_enabled"),
             "efficient": ("enable_mem_efficient_sdp", "mem_efficient_sdp_enabled"),
             "math": ("enable_math_sdp", "math_sdp_enabled"),
             "cudnn": ("enable_cudnn_sdp", "cudnn_sdp_enabled")}


def _present():
    """The backends this torch can switch (cuDNN's came later than the others)."""
    cuda = torch.backends.cuda
    return {name: names for name, names in _SWITCHES.items()
            if hasattr(cuda, names[0]) and hasattr(cuda, names[1])}


def leave_only(backend):
    """Enables `backend` alone; returns what was enabled before, for restore()."""
    cuda = torch.backends.cuda
    switches = _present()
    before = {name: getattr(cuda, query)() for name, (_, query) in switches.items()}
    for name, (switch, _) in switches.items():
        getattr(cuda, switch)(name == backend)
    return before


def restore(before):
    cuda = torch.backends.cuda
    for name, enabled in before.items():
        getattr(cuda, _SWITCHES[name][0])(enabled)
