"""Regional compilation (regional.py): which modules a window inside a compiled model compiles
alone, and on a real torch.compile (torch 2.x) that the markers' hooks then run outside every
compiled region, that the user's compilation is back after the window, that the regions'
compilations are counted apart from the script's, and that a region dynamo cannot compile alone
runs eagerly with its reason."""

import types
import unittest

import torch
import torch.nn as nn

from advisor_probe.compile_report import CompileRecorder
from advisor_probe.modules import ModuleTree
from advisor_probe.regional import (RegionalCompiler, compiled_ancestor, path_down, regions,
                                    repeated_blocks)


class Block(nn.Module):
    def __init__(self, breaks=False):
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.fc = nn.Linear(8, 8)
        self.breaks = breaks

    def forward(self, x):
        h = self.fc(self.norm(x))
        if self.breaks:
            torch._dynamo.graph_break()  # fullgraph=True cannot compile it
        return x + h


class Net(nn.Module):
    def __init__(self, breaks=False):
        super().__init__()
        self.embed = nn.Linear(4, 8)
        self.blocks = nn.ModuleList([Block(), Block(breaks), Block()])
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class Scaled(nn.Module):
    """A block whose forward reads its index as a constant: dynamo compiles one graph each."""

    def __init__(self, index):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.index = index

    def forward(self, x):
        return self.fc(x) * (self.index + 1)


class Deep(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Scaled(i) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def compiles():
    return hasattr(torch, "compile")


class OptimizedModule(nn.Module):
    """Stands in for torch.compile's wrapper where torch has none."""

    def __init__(self, module):
        super().__init__()
        self._orig_mod = module


class RepeatedBlocks(unittest.TestCase):
    """What torch-compile-regional compiles one by one (knobs.py)."""

    def test_the_largest_container_of_one_class_gives_its_members(self):
        net = Net()
        net.mlp = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))  # of mixed classes
        net.heads = nn.ModuleList([nn.Linear(8, 2), nn.Linear(8, 2)])  # one class, fewer weights
        self.assertEqual(repeated_blocks([net]), list(net.blocks))

    def test_each_root_gives_its_own(self):
        first, second = Net(), Deep(2)
        self.assertEqual(repeated_blocks([first, second]),
                         list(first.blocks) + list(second.blocks))

    def test_a_model_without_repeated_blocks_gives_none(self):
        lone = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.assertEqual(repeated_blocks([lone, Deep(1)]), [])


class WhichRegions(unittest.TestCase):
    def setUp(self):
        self.tree = ModuleTree([OptimizedModule(Net())], regional=lambda module: True)

    def test_the_compiled_model_is_looked_into(self):
        self.assertEqual(self.tree.info[""]["opaque"], "")
        self.assertEqual(list(self.tree.compiled), [""])
        self.assertTrue(self.tree.info[""]["compiled"], "advisor is told which module it is")
        self.assertFalse(self.tree.info["blocks.1"]["compiled"])
        self.assertIn("blocks.1.fc", self.tree.children_of("blocks.1"))
        self.assertNotIn("blocks.1.fc", self.tree.every_module(),
                         "a window on every module keeps the script's compilation")

    def test_without_its_options_it_stays_one_leaf(self):
        tree = ModuleTree([OptimizedModule(Net())], regional=lambda module: False)
        self.assertEqual(tree.info[""]["opaque"],
                         "compiled with torch.compile: measured as one leaf")
        self.assertEqual(tree.children_of(""), [])

    def test_everything_off_the_path_is_a_region(self):
        self.assertEqual(path_down("", "blocks.1"), ["", "blocks", "blocks.1"])
        self.assertEqual(path_down("a", "a.b.c"), ["a", "a.b", "a.b.c"])
        self.assertEqual(compiled_ancestor(self.tree, "blocks.1.fc"), "")
        self.assertEqual(regions(self.tree, "", ""), ["embed", "blocks.0", "blocks.1", "blocks.2",
                                                      "head"])
        self.assertEqual(regions(self.tree, "", "blocks.1"),
                         ["embed", "blocks.0", "blocks.2", "head", "blocks.1.norm", "blocks.1.fc"])

    def test_nothing_changes_outside_a_compiled_model(self):
        tree = ModuleTree([Net()])
        self.assertIsNone(compiled_ancestor(tree, "blocks.1"))
        self.assertIsNone(RegionalCompiler(CompileRecorder()).arrange(tree, "blocks.1"))


@unittest.skipUnless(compiles(), "this torch has no torch.compile")
class RealCompile(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.recorder = CompileRecorder()
        # The recorder wraps a namespace's compile, not torch's own for every test.
        self.torch = types.SimpleNamespace(compile=torch.compile, nn=torch.nn)
        self.recorder.wrap(self.torch)
        self.x = torch.randn(4, 4)

    def tree_of(self, net, **options):
        compiled = self.torch.compile(net, backend="eager", **options)
        return compiled, ModuleTree([compiled], regional=lambda module:
                                    self.recorder.options_of(module) is not None)

    def test_markers_sit_between_regions_and_the_compilation_comes_back(self):
        net = Net()
        compiled, tree = self.tree_of(net)
        regional = RegionalCompiler(self.recorder)
        regional.prepare(tree)
        expected = net(self.x)
        compiled(self.x).sum().backward()
        script_compilations = self.recorder.report()["compilations"]
        traced = []
        for path in tree.children_of("blocks.1"):
            tree.by_path[path].register_forward_pre_hook(
                lambda module, args, path=path: traced.append(
                    (path, torch.compiler.is_compiling())))
        restore = regional.arrange(tree, "blocks.1")
        self.recorder.regional_warmed()
        output = compiled(self.x)
        output.sum().backward()
        restore()
        report = self.recorder.report()
        after = len(traced)
        compiled(self.x)
        self.assertTrue(torch.allclose(output, expected, atol=1e-6))
        self.assertEqual(sorted(set(traced)), [("blocks.1", False), ("blocks.1.fc", False),
                                               ("blocks.1.norm", False)],
                         "each instance's hooks run eagerly, around its own region")
        self.assertTrue(all(compiling for _, compiling in traced[after:]),
                        "after the window no hook runs eagerly: the model is compiled whole again")
        self.assertTrue(all("forward" not in module.__dict__ for module in net.modules()))
        self.assertEqual(report["compilations"], script_compilations,
                         "the regions' compilations are advisor's, not the script's")
        regional = report["regional"]
        self.assertEqual(regional["levels"], ["blocks.1"])
        self.assertGreater(regional["compilations"], 0)
        self.assertGreater(regional["compile_s"], 0)
        self.assertEqual(regional["in_measured_steps"], regional["compilations"],
                         "warmed before the step: every compilation landed in a measured one")
        self.assertEqual(regional["eager"], [])

    def test_more_instances_than_the_recompile_limit_all_run_compiled(self):
        from torch._dynamo import config
        name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
        limit = getattr(config, name)
        compiled, tree = self.tree_of(Deep(limit + 2))
        regional = RegionalCompiler(self.recorder)
        regional.prepare(tree)
        restore = regional.arrange(tree, "")
        compiled(torch.randn(2, 8))
        restore()
        self.assertGreaterEqual(self.recorder.report()["regional"]["compilations"], limit + 2,
                                "one graph per instance, none past the limit left eager")
        self.assertEqual(getattr(config, name), limit, "the limit is back after the window")

    def test_a_region_that_cannot_compile_alone_runs_eagerly_and_says_why(self):
        net = Net(breaks=True)
        compiled, tree = self.tree_of(net, fullgraph=True)
        regional = RegionalCompiler(self.recorder)
        regional.prepare(tree)
        restore = regional.arrange(tree, "")
        output = compiled(self.x)
        restore()
        self.assertTrue(torch.allclose(output, net(self.x), atol=1e-6))
        eager = self.recorder.report()["regional"]["eager"]
        self.assertEqual([entry["path"] for entry in eager], ["blocks.1"])
        self.assertIn("graph_break()", eager[0]["reason"])


if __name__ == "__main__":
    unittest.main()
