"""Module paths as advisor names them: wrappers dropped, containers seen through, compiled
modules kept whole."""

import unittest

import torch
import torch.nn as nn

from advisor_probe.modules import ModuleTree, choose_roots, parameter_ids


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.blocks = nn.ModuleList([Block() for _ in range(3)])

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return x


class DistributedDataParallel(nn.Module):
    """Stands in for torch's DDP: advisor recognises wrappers by class name and attribute."""

    def __init__(self, module):
        super().__init__()
        self.module = module


class OptimizedModule(nn.Module):
    """Stands in for torch.compile's wrapper."""

    def __init__(self, module):
        super().__init__()
        self._orig_mod = module


class ModuleTreeTest(unittest.TestCase):
    def test_paths_and_containers(self):
        tree = ModuleTree([Net()])
        self.assertEqual(sorted(tree.info), ["", "blocks", "blocks.0", "blocks.0.fc", "blocks.1",
                                             "blocks.1.fc", "blocks.2", "blocks.2.fc", "stem"])
        self.assertFalse(tree.info["blocks"]["has_forward"])
        self.assertEqual(tree.info[""]["parameters"], 4 * 20)
        self.assertEqual(tree.children_of(""), ["stem", "blocks.0", "blocks.1", "blocks.2"],
                         "a ModuleList's members stand in for it")
        self.assertEqual(tree.children_of("blocks.1"), ["blocks.1", "blocks.1.fc"])

    def test_wrappers_leave_no_trace_in_paths(self):
        net = Net()
        tree = ModuleTree([DistributedDataParallel(net)])
        self.assertIn("blocks.2.fc", tree.info)
        self.assertNotIn("module", tree.info)
        self.assertIsInstance(tree.by_path[""], DistributedDataParallel, "the wrapper gets hooks")
        self.assertTrue(tree.info[""]["type"].endswith(".Net"), "the type is the user's")

    def test_a_compiled_module_is_one_leaf(self):
        net = Net()
        net.blocks[1] = OptimizedModule(net.blocks[1])
        tree = ModuleTree([net])
        self.assertIn("torch.compile", tree.info["blocks.1"]["opaque"])
        self.assertIn("blocks.1.fc", tree.info, "described")
        self.assertNotIn("blocks.1.fc", tree.every_module(), "but never hooked")
        self.assertEqual(tree.children_of("blocks.1"), ["blocks.1"])

    def test_shared_modules_keep_their_first_path(self):
        net = Net()
        net.blocks[2] = net.blocks[0]
        tree = ModuleTree([net])
        self.assertIn("blocks.0", tree.info)
        self.assertNotIn("blocks.2", tree.info)

    def test_several_roots_are_named_by_class(self):
        tree = ModuleTree([Net(), Block()])
        self.assertIn("Net.blocks.0.fc", tree.info)
        self.assertIn("Block.fc", tree.info)

    def test_roots_are_the_modules_the_optimizer_trains(self):
        net, loss = Net(), nn.CrossEntropyLoss()
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        self.assertEqual(choose_roots([net, loss], parameter_ids([optimizer])), [net])


if __name__ == "__main__":
    unittest.main()
