"""What torch's compiler did, as the probe reports it to advisor (compile_report.py): torch's
graph break records and recompile limit warning read into file, line and reason; on a real
torch.compile (torch 2.x), an .item() in a block's forward and a batch whose size changes give the
graph break at that line and the recompilation on the size guard. On torch 1.x (no compiler) the
report is absent."""

import inspect
import logging
import types
import unittest

import torch
import torch.nn as nn

from advisor_probe import compile_report
from advisor_probe.compile_report import (CompileRecorder, break_reason, parse_graph_break,
                                          parse_limit_hit)

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
        self.assertGreaterEqual(breaks[0]["count"], 1)
        # Block.forward, and the code after its break (dynamo's resume frame, named forward),
        # recompile for the new batch size.
        resized = [r for r in report["recompiles"]
                   if r["file"] == __file__ and "size mismatch" in r["guard"]]
        self.assertTrue(resized, report["recompiles"])
        self.assertEqual({r["function"] for r in resized}, {"forward"})
        self.assertTrue(all(r["guard"].startswith("tensor ") for r in resized),
                        "no compile id before the guard")
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


@unittest.skipIf(hasattr(torch, "compile"), "torch 2.x has torch.compile")
class NoCompiler(unittest.TestCase):
    def test_torch_1_has_no_compile_section(self):
        recorder = CompileRecorder()
        recorder.wrap(torch)
        self.assertFalse(hasattr(torch, "compile"))
        self.assertIsNone(recorder.report())


if __name__ == "__main__":
    unittest.main()
