"""What torch's compiler did, as the probe reports it to advisor (compile_report.py): torch's
graph break records and recompile limit warning read into file, line and reason; on a real
torch.compile (torch 2.x), an .item() in a block's forward and a batch whose size changes give the
graph break at that line and the recompilation on the size guard. torch's cudagraphs log records
(captures, captures made again, skips; fake records: no CUDA here) read into `cuda_graphs`, with
its debug records kept off the script's stderr and its skip warnings passed on. On torch 1.x (no
compiler) the report is absent."""

import inspect
import logging
import types
import unittest

import torch
import torch.nn as nn

from advisor_probe import compile_report
from advisor_probe.compile_report import (CompileRecorder, _Records, break_reason,
                                          graph_break_entry, parse_graph_break,
                                          parse_limit_hit, parse_skip)

ITEM_REASON = ("Encountered graph break when attempting to trace CALL: a function call, e.g. "
               "f(x, y):\n\nUnsupported Tensor.item() call with capture_scalar_outputs=False\n"
               "  Explanation: Dynamo does not support tracing `Tensor.item()`.")


class Records(unittest.TestCase):
    def test_a_graph_break_record_names_the_file_line_and_reason(self):
        first = ("Graph break in user code at /home/me/train.py:27\nGraph Break Reason: "
                 + ITEM_REASON + "\nUser code traceback:\n  File \"/home/me/train.py\", line 27")
        self.assertEqual(parse_graph_break(first),
                         ("/home/me/train.py", 27,
                          "Unsupported Tensor.item() call with capture_scalar_outputs=False"))
        repeated = ("Graph break (user stack suppressed due to duplicate graph break) in user "
                    "code at %s:%s\nGraph Break Reason: %s" % ("/home/me/train.py", 27,
                                                              ITEM_REASON))
        self.assertEqual(parse_graph_break(repeated), parse_graph_break(first))
        self.assertIsNone(parse_graph_break("Recompiling function forward in train.py:22"))

    def test_a_reason_is_its_line_that_says_why(self):
        self.assertEqual(break_reason("Data-dependent branching\n  Explanation: ..."),
                         "Data-dependent branching")
        self.assertEqual(len(break_reason("x" * 5000)), 400)
        self.assertEqual(break_reason("a\tb"), "a b", "no control characters for advisor")

    def test_the_recompile_limits_warning_names_the_function(self):
        args = ("recompile_limit", 8, "'forward' (/home/me/train.py:22)", "size mismatch",
                "https://pytorch.org/docs/main/torch.compiler_troubleshooting.html")
        self.assertEqual(parse_limit_hit(args), {"function": "forward",
                                                 "file": "/home/me/train.py", "line": 22,
                                                 "limit": 8})
        self.assertIsNone(parse_limit_hit(("recompile_limit", 8)))
        self.assertIsNone(parse_limit_hit(("recompile_limit", 8, "forward")))

    def test_a_record_that_reaches_two_handlers_is_one_break(self):
        log = logging.getLogger("advisor_test.symbolic_convert.__graph_breaks")
        log.artifact_name = "graph_breaks"
        record = log.makeRecord(log.name, logging.DEBUG, __file__, 1,
                                "Graph break in user code at %s:%s\nGraph Break Reason: %s",
                                ("/home/me/train.py", 27, ITEM_REASON), None)
        recorder = CompileRecorder()
        recorder.heard(record)
        recorder.heard(record)  # its parent's handler, where TORCH_LOGS asked for graph_breaks
        self.assertEqual(list(recorder._breaks.values()), [1])

    def test_a_break_carries_its_lines_code_where_the_file_can_be_read(self):
        self.assertEqual(graph_break_entry(__file__, ITEM_LINE, ITEM_REASON, 2),
                         {"reason": ITEM_REASON, "file": __file__, "line": ITEM_LINE,
                          "text": "if y.sum().item() > 1e9: # the graph break", "count": 2})
        self.assertEqual(graph_break_entry("/nonexistent/train.py", 27, ITEM_REASON, 1)["text"], "")

    def test_nothing_compiled_is_no_report(self):
        self.assertIsNone(CompileRecorder().report())


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        y = self.linear(x)
        if y.sum().item() > 1e9:  # the graph break
            y = y * 2
        return torch.relu(y)


ITEM_LINE = inspect.getsourcelines(Block.forward)[1] + 2


@unittest.skipUnless(hasattr(torch, "compile"), "torch 1.x has no torch.compile")
class Compiled(unittest.TestCase):
    def setUp(self):
        self.original = torch.compile
        self.recorder = CompileRecorder()
        self.recorder.wrap(torch)

    def tearDown(self):
        torch.compile = self.original

    def test_a_graph_break_and_a_recompilation_on_the_batch_size(self):
        model = torch.compile(nn.Sequential(nn.Linear(8, 8), Block()), backend="eager")
        for batch in (4, 4, 6, 6):
            model(torch.randn(batch, 8)).sum().backward()
        report = self.recorder.report()
        self.assertIsNotNone(report)
        self.assertGreaterEqual(report["graphs"], 2)
        self.assertGreater(report["compile_s"], 0)
        self.assertGreaterEqual(report["compilations"], 2)
        breaks = [b for b in report["graph_breaks"] if b["file"] == __file__]
        self.assertEqual([b["line"] for b in breaks], [ITEM_LINE], report["graph_breaks"])
        self.assertIn("item()", breaks[0]["reason"])
        self.assertIn(".item()", breaks[0]["text"], "the line's code, for the finding's source")
        self.assertGreaterEqual(breaks[0]["count"], 1)
        # Block.forward, and the code after its break (dynamo's resume frame, named forward),
        # recompile for the new batch size.
        resized = [r for r in report["recompiles"]
                   if r["file"] == __file__ and "size mismatch" in r["guard"]]
        self.assertTrue(resized, report["recompiles"])
        self.assertEqual({r["function"] for r in resized}, {"forward"})
        self.assertTrue(all(r["guard"].startswith("tensor ") for r in resized),
                        "no compile id before the guard")
        self.assertIsNone(report["cuda_graphs"], "no CUDA graphs on a CPU")
        self.assertFalse(any("torch" in r["file"].split("/")[-2:][0] for r in report["recompiles"]),
                         "torch's own wrapper frame is left out")

    def test_torchs_graph_break_records_stay_off_the_scripts_stderr(self):
        self.recorder.listen()
        from torch._logging._internal import log_state
        if log_state.is_artifact_enabled("graph_breaks"):
            self.skipTest("TORCH_LOGS asks for graph_breaks here")
        for name in logging.root.manager.loggerDict:
            log = logging.getLogger(name)
            if getattr(log, "artifact_name", "") == "graph_breaks":
                self.assertFalse(log.propagate, name)

    def test_torchs_cuda_graph_records_are_heard_and_its_warnings_still_reach_the_user(self):
        from torch._logging._internal import log_state
        if log_state.is_artifact_enabled("cudagraphs"):
            self.skipTest("TORCH_LOGS asks for cudagraphs here")
        # torch.compile(model, mode="reduce-overhead"), without compiling anything yet.
        self.recorder.listen(compile_report._asks_for_cuda_graphs({"mode": "reduce-overhead"}))
        # The captures' logger, whose module torch imports only at its first capture.
        import torch._inductor.cudagraph_trees as trees
        self.assertIn(self.recorder._handler, trees.log.handlers)
        self.assertFalse(trees.log.propagate)
        import torch._inductor.cudagraph_utils as utils
        log = utils.cudagraphs_log
        self.assertFalse(log.propagate)
        self.assertTrue(log.isEnabledFor(logging.DEBUG))
        torchs = Collected()
        log.parent.addHandler(torchs)
        try:
            utils.log_cudagraph_skip_and_bump_counter("skipping cudagraphs due to cpu device (x)")
        finally:
            log.parent.removeHandler(torchs)
        self.assertEqual([r.getMessage() for r in torchs.records],
                         ["skipping cudagraphs due to cpu device (x)"])
        self.assertEqual(self.recorder._cuda_graphs.report()["skipped"],
                         [{"reason": "cpu device (x)", "count": 1}])


def _entry(name, seconds, recompile_reason=None):
    """One entry of torch's compilation metrics, as the probe reads it."""
    return types.SimpleNamespace(co_name=name, co_filename="/home/me/train.py", co_firstlineno=10,
                                 recompile_reason=recompile_reason,
                                 entire_frame_compile_time_s=seconds, is_forward=True)


@unittest.skipUnless(hasattr(torch, "compile"), "torch 1.x has no torch.compile")
class RingOfMetrics(unittest.TestCase):
    """torch keeps its last 64 compilation metrics: a window's regions (one forward and one
    backward entry each; the seed ViT's 39 compiled under reduce-overhead) pushed the script's own
    compilation out, and the report said the script compiled nothing in 0 s (H200, 2026-11-30)."""

    def setUp(self):
        self.ring = []
        self.original = compile_report._metrics
        compile_report._metrics = lambda: list(self.ring[-64:])

    def tearDown(self):
        compile_report._metrics = self.original

    def test_the_scripts_compilations_outlive_the_regions_that_push_them_out(self):
        recorder = CompileRecorder()
        recorder._listening = True
        self.ring += [_entry("forward", 20.0), _entry("forward", 1.5, "size mismatch at index 0")]
        recorder.regional_starts("blocks")
        self.ring += [_entry("forward", 0.1) for _ in range(4)]  # in the warm-up step
        recorder.regional_warmed()
        self.ring += [_entry("forward", 0.1) for _ in range(80)]  # past the ring's 64
        recorder.regional_ends()
        report = recorder.report()
        self.assertEqual(report["compilations"], 2)
        self.assertAlmostEqual(report["compile_s"], 21.5)
        # The regions past the ring are lost to their own count (64 of 84): theirs is a lower bound.
        self.assertEqual(report["regional"]["compilations"], 64)
        self.assertEqual(len(report["recompiles"]), 1)
        self.ring.append(_entry("forward", 2.0))  # the script compiles again after the window
        self.assertEqual(recorder.report()["compilations"], 3)


CUDAGRAPHS = logging.getLogger("advisor_test.inductor.cudagraph_trees.__cudagraphs")
CUDAGRAPHS.artifact_name = "cudagraphs"
RECORDING = "[%s] Recording function=%s, mode=%s, cuda_graph_id=%d, inputs: %s"
RERECORDING = "[%s] Re-recording function=%s, mode=%s, reason=%s"
MUTATION = ("skipping cudagraphs due to mutated inputs (1 instances). Found from : \n   File "
            "\"/home/me/train.py\", line 30, in forward\n    self.count.add_(1)\n")


def _recording(graph_id, mode="FORWARD", function="partition_0", compile_id="0/0"):
    return CUDAGRAPHS.makeRecord(CUDAGRAPHS.name, logging.DEBUG, __file__, 1, RECORDING,
                                 (compile_id, function, mode, graph_id, "[...]"), None)


def _rerecording(reason, mode="FORWARD"):
    return CUDAGRAPHS.makeRecord(CUDAGRAPHS.name, logging.DEBUG, __file__, 1, RERECORDING,
                                 ("0/0", "partition_0", mode, reason), None)


def _skip(message, func="log_cudagraph_skip_and_bump_counter"):
    return CUDAGRAPHS.makeRecord(CUDAGRAPHS.name, logging.WARNING, __file__, 1, message, (), None,
                                 func=func)


class CudaGraphRecords(unittest.TestCase):
    """What torch's cudagraph trees log under mode="reduce-overhead" (torch/_inductor/
    cudagraph_trees.py, cudagraph_utils.py), as fake records: each capture, each capture made
    again, each skip."""

    def setUp(self):
        self.step = 0
        self.recorder = CompileRecorder(lambda: self.step)

    def cuda_graphs(self):
        return self.recorder._cuda_graphs.report()

    def test_no_record_is_no_section(self):
        self.recorder.heard(_skip("CUDAGraph supports dynamic shapes by recording a new graph",
                                  func="maybe_warning_due_to_dynamic_shape"))
        self.assertIsNone(self.cuda_graphs(), "a warning that is not a skip")

    def test_a_forward_and_a_backward_captured_once_each(self):
        self.step = 1  # the first step warms up; the second captures
        self.recorder.heard(_recording(0, "FORWARD"))
        self.recorder.heard(_recording(1, "BACKWARD"))
        self.step = 29
        report = self.cuda_graphs()
        self.assertEqual(report["recordings"], 2)
        self.assertEqual(report["step"], 29)
        self.assertEqual(report["functions"], [
            {"function": "partition_0", "mode": "forward", "recordings": 1, "first_step": 1,
             "later_steps": 0, "rerecordings": 0, "rerecord_reason": ""},
            {"function": "partition_0", "mode": "backward", "recordings": 1, "first_step": 1,
             "later_steps": 0, "rerecordings": 0, "rerecord_reason": ""}])
        self.assertEqual(report["skipped"], [])

    def test_a_function_captured_again_every_step(self):
        self.step = 1
        self.recorder.heard(_recording(0))
        for self.step in range(2, 12):
            self.recorder.heard(_rerecording("static input data pointer changed.\ninput name: x"))
            self.recorder.heard(_recording(self.step))
            self.recorder.heard(_recording(100 + self.step))  # a second capture in that step
        forward = self.cuda_graphs()["functions"][0]
        self.assertEqual(forward["recordings"], 21)
        self.assertEqual(forward["later_steps"], 10, "steps, not captures")
        self.assertEqual(forward["rerecordings"], 10)
        self.assertEqual(forward["rerecord_reason"], "static input data pointer changed.")

    def test_the_capture_after_one_of_advisors_windows_is_not_the_scripts_steady_state(self):
        self.step = 1
        self.recorder.heard(_recording(0))
        self.recorder._regional = {"entries": set(), "graphs": 0, "warm": None}
        self.step = 5
        self.recorder.heard(_recording(1))  # a region's own capture: advisor's
        self.recorder._regional = None
        self.recorder._cuda_graphs.windows_ended += 1  # what regional_ends counts
        self.step = 8
        self.recorder.heard(_recording(2))  # the script's graph captured again after the window
        self.step = 9
        self.recorder.heard(_recording(3))
        report = self.cuda_graphs()
        self.assertEqual(report["recordings"], 3)
        self.assertEqual(report["functions"][0]["later_steps"], 1, "step 9's only")

    def test_skips_by_reason_without_torchs_prefix_and_stack(self):
        for _ in range(2):
            self.recorder.heard(_skip(MUTATION))
        self.recorder.heard(_skip("disabling cudagraphs due to incompatible op "
                                  "aten.nonzero.default Found from   File \"x.py\"\n"))
        self.recorder.heard(_skip("graph with symbolic shapes inputs and config.triton."
                                  "cudagraph_skip_dynamic_graphs=True.\n"))
        self.assertEqual(self.cuda_graphs()["skipped"], [
            {"reason": "mutated inputs (1 instances)", "count": 2},
            {"reason": "incompatible op aten.nonzero.default", "count": 1},
            {"reason": "graph with symbolic shapes inputs and "
                       "config.triton.cudagraph_skip_dynamic_graphs=True.", "count": 1}])
        self.assertEqual(self.cuda_graphs()["recordings"], 0)

    def test_a_skip_reason_is_one_bounded_line(self):
        self.assertEqual(parse_skip("skipping cudagraph due to function 0 exceeding max "
                                    "re-recording limit (=50) on cudagraph node 3 due to x."),
                         "function 0 exceeding max re-recording limit (=50) on cudagraph node 3 "
                         "due to x.")
        self.assertEqual(parse_skip("skipping cudagraphs due to cpu device (arg0_1). Found from "
                                    ": \n  File"), "cpu device (arg0_1)")
        self.assertEqual(len(parse_skip("skipping cudagraphs due to " + "y" * 5000)), 400)

    def test_functions_and_reasons_past_the_cap_count_in_the_total_only(self):
        for graph_id in range(compile_report.MAX_ENTRIES + 5):
            self.recorder.heard(_recording(graph_id, compile_id="%d/0" % graph_id))
            self.recorder.heard(_skip("skipping cudagraphs due to reason %d" % graph_id))
        report = self.cuda_graphs()
        self.assertEqual(report["recordings"], compile_report.MAX_ENTRIES + 5)
        self.assertEqual(len(report["functions"]), compile_report.MAX_ENTRIES)
        self.assertEqual(len(report["skipped"]), compile_report.MAX_ENTRIES)


class AskingForCudaGraphs(unittest.TestCase):
    def test_the_modes_and_options_that_capture_cuda_graphs(self):
        asks = compile_report._asks_for_cuda_graphs
        self.assertTrue(asks({"mode": "reduce-overhead"}))
        self.assertTrue(asks({"mode": "max-autotune"}))
        self.assertTrue(asks({"options": {"triton.cudagraphs": True}}))
        self.assertFalse(asks({"mode": "max-autotune-no-cudagraphs"}))
        self.assertFalse(asks({"backend": "eager", "options": None}))


class Collected(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


class CudaGraphLogKeptFromTheUser(unittest.TestCase):
    """The probe lowers the cudagraphs log's level to debug and detaches it from torch's handlers:
    its debug records stay with the probe, its skip warnings reach torch's handlers as before."""

    def setUp(self):
        self.parent = logging.getLogger("advisor_test.inductor")
        self.parent.setLevel(logging.WARNING)  # torch's default for its loggers
        self.torchs = Collected()
        self.parent.addHandler(self.torchs)
        self.recorder = CompileRecorder()
        self.handler = _Records(self.recorder)
        CUDAGRAPHS.setLevel(logging.DEBUG)
        CUDAGRAPHS.propagate = False
        self.handler.detached.add(CUDAGRAPHS)
        CUDAGRAPHS.addHandler(self.handler)

    def tearDown(self):
        CUDAGRAPHS.removeHandler(self.handler)
        CUDAGRAPHS.propagate = True
        self.parent.removeHandler(self.torchs)

    def test_the_capture_is_the_probes_and_the_skip_the_users_too(self):
        CUDAGRAPHS.debug(RECORDING, "0/0", "partition_0", "FORWARD", 0, "[...]")
        self.assertEqual(self.torchs.records, [], "a debug record torch would not have printed")
        CUDAGRAPHS.warning(MUTATION)
        self.assertEqual([r.getMessage() for r in self.torchs.records], [MUTATION])
        report = self.recorder._cuda_graphs.report()
        self.assertEqual(report["recordings"], 1)
        self.assertEqual(report["skipped"], [])  # not logged from torch's skip function

    def test_a_user_who_asked_for_the_log_gets_it_once(self):
        CUDAGRAPHS.propagate = True  # torch's set_logs(cudagraphs=True) after the probe listened
        CUDAGRAPHS.warning(MUTATION)
        self.assertEqual(len(self.torchs.records), 1)


@unittest.skipIf(hasattr(torch, "compile"), "torch 2.x has torch.compile")
class NoCompiler(unittest.TestCase):
    def test_torch_1_has_no_compile_section(self):
        recorder = CompileRecorder()
        recorder.wrap(torch)
        self.assertFalse(hasattr(torch, "compile"))
        self.assertIsNone(recorder.report())


if __name__ == "__main__":
    unittest.main()
