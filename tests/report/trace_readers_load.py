"""Loads advisor's trace.json as a torch.profiler trace with HTA (HolisticTraceAnalysis) and with
TensorBoard's profiler plugin (torch-tb-profiler).

    python trace_readers_load.py DIR

DIR/gpu/trace.json (a GPU run's window) gets HTA's temporal and kernel breakdowns; they need
kernels. DIR/cpu/trace.json (a CPU run's) has none, and HTA's breakdowns are all of GPU time
(the temporal one fails with an IndexError on a trace without kernels), so it gets what HTA does
with the host side alone: its trace frame, each op in the iteration of the ProfilerStep#N around
it, and the module spans among the events. (HTA's CallGraph fails inside HTA on any trace in this
virtualenv: numpy's unique on an object column that pandas 3 makes.)

TensorBoard's plugin parses each trace as it does a worker's file of a run (RunProfileData) and
generates the run's views (RunGenerator): Overview, Operator, Trace, and Kernel with kernels; a
warning it logs fails the test (it warned of every kernel whose pid was not its device).
"""
import logging
import sys
import tempfile

from hta.trace_analysis import TraceAnalysis
from torch_tb_profiler import consts
from torch_tb_profiler.profiler.data import RunProfileData
from torch_tb_profiler.profiler.run_generator import RunGenerator

logging.getLogger().setLevel(logging.ERROR)  # HTA warns of ns rounding and the like on every load


def check(condition, what):
    if not condition:
        sys.exit(f"trace_readers_load: {what}")


def gpu_breakdowns(folder):
    analyzer = TraceAnalysis(trace_dir=folder)
    temporal = analyzer.get_temporal_breakdown(visualize=False)
    check(temporal.loc[0, "compute_time(us)"] > 0, f"no compute time in\n{temporal}")
    types, kernels = analyzer.get_gpu_kernel_breakdown(visualize=False)
    names = set(kernels["name"])
    check("gemm" in names and "gemm_grad" in names, f"the GEMMs are not among {names}")
    check("MEMORY" in set(types["kernel_type"]), f"the batch's copy is not in\n{types}")
    print(f"hta gpu: temporal breakdown\n{temporal.to_string()}\nkernels: {sorted(names)}")


def cpu_trace_frame(folder):
    analyzer = TraceAnalysis(trace_dir=folder)
    frame = analyzer.t.get_trace(0)
    symbols = analyzer.t.symbol_table
    names = frame["name"].map(lambda i: symbols.sym_table[i])
    categories = frame["cat"].map(lambda i: symbols.sym_table[i])
    ops = frame[categories == "cpu_op"]
    check(len(ops) > 0, "no cpu_op events")
    iterations = set(ops["iteration"])
    # Of ProfilerStep#0-2: HTA leaves out the events from the last step's start on, as it does
    # with any trace of several steps (the profiler may have stopped inside it).
    check(iterations == {0, 1}, f"the ops' iterations are {iterations}, not ProfilerStep#0 and 1")
    modules = set(names[categories == "user_annotation"])
    check({"encoder", "encoder.attn", "head"} <= modules, f"the module spans are not in {modules}")
    print(f"hta cpu: {len(ops)} ops in iterations {sorted(iterations)}; "
          f"annotations {sorted(modules)}")


class Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def tensorboard_views(path, kernels):
    warnings = Warnings()
    plugin_logger = logging.getLogger(consts.PLUGIN_NAME)
    plugin_logger.addHandler(warnings)
    with tempfile.TemporaryDirectory() as cache:
        data = RunProfileData.parse("worker0", None, path, cache)
        profile = RunGenerator("worker0", None, data).generate_run_profile()
    views = [view.display_name for view in profile.views]
    plugin_logger.removeHandler(warnings)
    check(not warnings.messages, f"TensorBoard's plugin warned: {warnings.messages[:3]}")
    check(len(data.steps_names) == 3, f"the steps are {data.steps_names}, not ProfilerStep#0-2")
    check(data.has_kernel == kernels and ("Kernel" in views) == kernels,
          f"kernels: {data.has_kernel}, views {views}")
    print(f"tensorboard {path}: views {views}")


if __name__ == "__main__":
    gpu_breakdowns(f"{sys.argv[1]}/gpu")
    cpu_trace_frame(f"{sys.argv[1]}/cpu")
    tensorboard_views(f"{sys.argv[1]}/gpu/trace.json", kernels=True)
    tensorboard_views(f"{sys.argv[1]}/cpu/trace.json", kernels=False)
