"""Start-up inside the user's interpreter, before the script runs: open the channel, refuse a
Python without torch or with a torch other than the one advisor's probe library was built
against (before the script runs half-instrumented), and arrange for the session to start the
moment torch finishes importing."""

import ast
import importlib.abc
import importlib.util
import json
import os
import platform
import sys

from advisor_probe import spawned_children
from advisor_probe.channel import Channel


def _fatal(channel, message):
    """Ends the interpreter before the script runs on half-instrumented. In bench mode there is no
    channel: the message goes to stderr, which the autotest quotes."""
    if channel is None:
        sys.stderr.write("advisor probe: %s\n" % message)
    else:
        channel.send({"type": "fatal", "message": message})
        channel.close()
    os._exit(3)


def _torch_version_on_disk(spec):
    """torch.__version__ and torch.version.cuda from torch/version.py, without importing torch."""
    for location in spec.submodule_search_locations or []:
        path = os.path.join(location, "version.py")
        try:
            with open(path) as source:
                tree = ast.parse(source.read())
        except OSError:
            continue
        found = {}
        for node in tree.body:
            # `__version__ = "1.13.0"`, or annotated as torch 2.x writes it:
            # `cuda: Optional[str] = "13.0"`.
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            elif isinstance(node, ast.AnnAssign):
                target = node.target
            else:
                continue
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant):
                found[target.id] = node.value.value
        return found.get("__version__"), found.get("cuda")
    return None, None


def _check_torch(channel, build):
    spec = importlib.util.find_spec("torch")
    if spec is None:
        _fatal(channel, "%s has no torch (no module named 'torch'): run the script with the "
                        "Python of your training environment" % sys.executable)
    built = build.get("python_torch")
    if not built:
        _fatal(channel, "advisor's script probe was built without a Python with torch: rebuild "
                        "with scripts/setup.sh --python %s" % sys.executable)
    version, cuda = _torch_version_on_disk(spec)
    if version is not None and (version != built["torch_version"] or cuda != built["cuda"]):
        _fatal(channel, "the script's torch is %s (CUDA %s, %s) but advisor's probe was built "
                        "against torch %s (CUDA %s, %s): rebuild with scripts/setup.sh --python %s"
               % (version, cuda, sys.executable, built["torch_version"], built["cuda"],
                  built["python"], sys.executable))
    return built


def _fix_seeds(torch):
    """The same random numbers in the baseline's run and the candidate's, where the script does
    not seed them itself (numerics compare their first steps' losses)."""
    import random

    random.seed(0)
    torch.manual_seed(0)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(0)


class _AfterExec(importlib.abc.Loader):
    """Runs `then(module)` once the wrapped loader has executed the module."""

    def __init__(self, loader, then):
        self._loader = loader
        self._then = then

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._then(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _WhenTorchImports(importlib.abc.MetaPathFinder):
    def __init__(self, then):
        self._then = then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _AfterExec(spec.loader, self._then)
        return spec


# Launchers that start the training process as a child: the probe belongs in the child.
_LAUNCHER_MODULES = ("torch.distributed.run", "torch.distributed.launch")


def _is_launcher():
    argv = getattr(sys, "orig_argv", sys.argv)
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1] in _LAUNCHER_MODULES
    return len(argv) > 1 and os.path.basename(argv[1]) == "torchrun"


def _is_known_launcher_crash(kind, traceback):
    """Torch 1.13's launcher on Python 3.11 and later cannot read its own default --redirects and
    --tee ("0"): its Std.from_str finds no member for it under 3.11's enums, and to_map then fails
    on None, before any rank starts, with a traceback that says nothing of the cure."""
    last = traceback
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if kind is not AttributeError or last is None:
        return False
    code = last.tb_frame.f_code
    return code.co_name == "to_map" and code.co_filename.replace(os.sep, "/").endswith(
        "torch/distributed/elastic/multiprocessing/api.py")


def _explain_launcher_crashes():
    """After a launcher's traceback, the line that says how to get past a crash advisor knows."""
    shown = sys.excepthook

    def hook(kind, value, traceback):
        shown(kind, value, traceback)
        if _is_known_launcher_crash(kind, traceback):
            sys.stderr.write("advisor: this torch's launcher cannot read its own default "
                             "--redirects and --tee on Python %s: add --redirects 1 --tee 1 to "
                             "its command (torchrun --redirects 1 --tee 1 ...)\n"
                             % platform.python_version())

    sys.excepthook = hook


def install():
    if _is_launcher():
        _explain_launcher_crashes()
        return  # the variables stay in the environment for the process it starts
    bench = os.environ.pop("ADVISOR_PROBE_BENCH", None)
    if bench is not None:
        channel, config = None, json.loads(bench)
    else:
        channel = Channel(os.environ.pop("ADVISOR_PROBE_SOCKET"))
        config = json.loads(os.environ.pop("ADVISOR_PROBE_CONFIG"))
        channel.send({"type": "hello", "protocol": 1, "pid": os.getpid(),
                      "python": platform.python_version(), "executable": sys.executable,
                      "rank": int(os.environ.get("RANK", 0)),
                      "world_size": int(os.environ.get("WORLD_SIZE", 1)),
                      "local_world_size": int(os.environ.get("LOCAL_WORLD_SIZE",
                                                             os.environ.get("WORLD_SIZE", 1))),
                      "group_rank": int(os.environ.get("GROUP_RANK", 0)),
                      "group_world_size": int(os.environ.get("GROUP_WORLD_SIZE", 1)),
                      "host": platform.node()})
    with open(config["build_info"]) as info:
        build = json.load(info)
    built = _check_torch(channel, build)
    spawned_children.keep_folder_for_spawned_children()

    def start(torch):
        from advisor_probe.session import Session

        abi = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
        if abi != built["cxx11_abi"]:
            _fatal(channel, "the script's torch uses the C++ ABI %s, advisor's probe library %s: "
                            "rebuild with scripts/setup.sh --python %s"
                   % (int(abi), int(built["cxx11_abi"]), sys.executable))
        try:
            torch.ops.load_library(config["library"])
        except Exception as error:  # a library that does not load is a build problem: say so
            _fatal(channel, "cannot load advisor's probe library %s: %s"
                   % (config["library"], str(error).splitlines()[0]))
        try:
            if channel is None:
                from advisor_probe.bench import Bench
                from advisor_probe.knobs import Knobs

                _fix_seeds(torch)
                session = None
                bench = Bench(config, lambda: session._device)
                session = Session(None, bench, Knobs(config.get("overrides", {}),
                                                     numerics=bool(config.get("loss_steps"))))
                session.start()
            else:
                Session(channel).start()
        except Exception as error:  # the probe's own failure must not look like the script's
            _fatal(channel, "advisor's probe could not start in torch %s: %s: %s"
                   % (torch.__version__, type(error).__name__, error))

    sys.meta_path.insert(0, _WhenTorchImports(start))
