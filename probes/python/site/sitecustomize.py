"""advisor's script probe, injected by `advisor bisect -- python ...` through PYTHONPATH.

Python imports the first sitecustomize on its path at start-up. This one starts the probe when
advisor launched the interpreter (ADVISOR_PROBE_SOCKET for a bisection, ADVISOR_PROBE_BENCH for
an autotest worker; the probe removes them, so the script's own child interpreters run untouched;
a launcher such as torchrun leaves them to the process it starts), then runs the sitecustomize it
shadows, as Python would have. A child that multiprocessing spawns only imports the probe's
package, to unpickle what its parent sends it.
"""

import os
import sys


def _run_shadowed_sitecustomize():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    others = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


if "ADVISOR_PROBE_SOCKET" in os.environ or "ADVISOR_PROBE_BENCH" in os.environ:
    from advisor_probe import bootstrap

    bootstrap.install()
elif "--multiprocessing-fork" in getattr(sys, "argv", ()):
    # A spawned child of the script: its parent's sys.path replaces this one before the probe's
    # objects arrive, and may lack this folder (advisor_probe/spawned_children.py).
    import advisor_probe  # noqa: F401

_run_shadowed_sitecustomize()
