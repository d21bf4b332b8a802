"""The compiled graphs' provenance table (provenance.py): dynamo's module names read as paths, the
output code's kernels and extern calls with the nodes they compute, and on a real torch.compile
(torch 2.x, the modern lane) a two-block MLP's forward and backward graphs, each matrix multiply
given to its Linear instance, the backward's through AOTAutograd's fwd_nn_module_stack."""

import unittest

import torch
import torch.nn as nn

from advisor_probe.provenance import (ProvenanceRecorder, graph_table, instance_path,
                                      kernel_entry, parse_output_code)

# A GPU graph's output code as inductor writes it (torch 2.x): a generated kernel's definition
# after its path and Source Nodes comments, an extern call after its comment, one without.
CODE = '''
# kernel path: /tmp/torchinductor_root/ab/cabc.py
# Topologically Sorted Source Nodes: [x_1, getitem, cat], Original ATen: [aten.gather, aten.cat]
# Source node to ATen node mapping:
#   cat => cat
#   getitem => gather
triton_poi_fused_cat_gather_0 = async_compile.triton('triton_poi_fused_cat_gather_0', \'\'\'
import triton
\'\'\', device_str='cuda')

class Runner:
    def call(self, args):
        # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.addmm]
        extern_kernels.addmm(primals_2, buf0, primals_1, alpha=1, beta=1, out=buf1)
        # Topologically Sorted Source Nodes: [x_1, getitem, cat], Original ATen: [aten.gather]
        triton_poi_fused_cat_gather_0.run(buf1, buf2, 1024, stream=stream0)
        buf3 = torch.ops.aten.index_put_.default(buf2, [idx], buf1, True)
        extern_kernels.mm(buf2, primals_3, out=buf4)
'''


class OutputCode(unittest.TestCase):
    def test_dynamo_names_read_as_paths_in_the_compiled_module(self):
        self.assertEqual(instance_path("L['self'].blocks[0].attn"), "blocks.0.attn")
        self.assertEqual(instance_path("L['self']._modules['blocks']._modules['0'].mlp"),
                         "blocks.0.mlp")
        self.assertEqual(instance_path("L['fn'].0.fc1"), "0.fc1")
        self.assertEqual(instance_path("L['self'].patch_drop"), "patch_drop")

    def test_kernels_and_extern_calls_with_their_source_nodes_in_order(self):
        kernels, calls = parse_output_code(CODE)
        self.assertEqual(kernels, {"triton_poi_fused_cat_gather_0": ["x_1", "getitem", "cat"]})
        self.assertEqual(calls, [("aten::addmm", ["linear"]), ("aten::index_put_", []),
                                 ("aten::mm", [])])

    def test_a_kernel_fused_across_instances_holds_each_its_share_of_nodes(self):
        sources = {"x_1": ["norm_pre"], "getitem": ["patch_drop"], "cat": ["patch_drop"],
                   "linear": ["head", None]}  # linear became two post-grad nodes, one without
        self.assertEqual(kernel_entry(["x_1", "getitem", "cat"], sources),
                         {"nodes": 3, "instances": [{"path": "patch_drop", "nodes": 2.0},
                                                    {"path": "norm_pre", "nodes": 1.0}]})
        self.assertEqual(kernel_entry(["linear", "unknown"], sources),
                         {"nodes": 2, "instances": [{"path": "head", "nodes": 0.5}]})
        table = graph_table("forward", sources, CODE)
        self.assertEqual([call["nodes"] for call in table["extern_calls"]], [1, 0, 0])


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(x)))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


@unittest.skipUnless(hasattr(torch, "compile"), "torch 1.x has no torch.compile")
class CompiledMlp(unittest.TestCase):
    def test_each_matrix_multiply_of_both_graphs_goes_to_its_linear(self):
        import torch._inductor.config as config
        users = config.post_grad_custom_post_pass
        recorder = ProvenanceRecorder()
        recorder.install()
        try:
            model = torch.compile(Mlp())
            model(torch.randn(4, 16)).sum().backward()
        finally:
            config.post_grad_custom_post_pass = users
            torch._dynamo.reset()
        tables = recorder.tables()
        self.assertEqual([table["direction"] for table in tables], ["forward", "backward"])
        linears = {"blocks.0.fc1", "blocks.0.fc2", "blocks.1.fc1", "blocks.1.fc2"}
        forward = [call["instances"][0]["path"] for call in tables[0]["extern_calls"]]
        self.assertEqual(forward, sorted(linears))  # the order the forward calls them
        backward = {instance["path"] for call in tables[1]["extern_calls"]
                    for instance in call["instances"]}
        self.assertEqual(backward, linears)
        self.assertTrue(all(call["op"] in ("aten::mm", "aten::addmm")
                            for table in tables for call in table["extern_calls"]))


if __name__ == "__main__":
    unittest.main()
