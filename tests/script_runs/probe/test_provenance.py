"""The compiled graphs' provenance table (provenance.py): dynamo's module names read as paths, the
output code's kernels and extern calls with the nodes they compute (by the Source Nodes comment,
else by their IR node's origins), and on a real torch.compile (torch 2.x, the modern lane) a
two-block MLP's forward and backward graphs, each matrix multiply given to its Linear instance,
the backward's through AOTAutograd's fwd_nn_module_stack, and its token drop's deterministic
scatter, which the output code names no node of, given to the drop by the scatter's origins."""

import os
import sys
import types
import unittest

import torch

from advisor_probe.provenance import (ExternOrigins, ProvenanceRecorder, graph_table,
                                      instance_path, kernel_entry, parse_output_code)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from two_block_mlp import Mlp  # noqa: E402

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
        aten.index_put_(buf2, [None, idx], buf1, True)
        aten.scatter_reduce_.two(buf2,1,iota,buf1, reduce='sum', include_self=True)
        buf5 = torch.ops.aten.randint.low(-9223372036854775808, 9223372036854775807, [1])
        extern_kernels.mm(buf2, primals_3, out=reinterpret_tensor(buf4, (4, 4), (4, 1), 0))
'''


def fx_node(name, from_node=None, op="call_function"):
    """A post-grad FX node as provenance.py reads it: its op, name and metadata."""
    meta = {"from_node": [types.SimpleNamespace(name=from_node)]} if from_node else {}
    return types.SimpleNamespace(op=op, name=name, meta=meta)


class IrNode:
    """An extern IR node as provenance.py reads it: its buffer, what it mutates, its origins."""

    def __init__(self, name, origins, mutated=()):
        self.name, self.origins, self.mutated = name, origins, list(mutated)

    def get_name(self):
        return self.name

    def get_mutation_names(self):
        return self.mutated


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
        self.assertEqual(calls, [("aten::addmm", ["linear"], ("output", "buf1")),
                                 ("aten::index_put_", [], ("mutated", "buf2")),
                                 ("aten::scatter_reduce_", [], ("mutated", "buf2")),
                                 ("aten::randint", [], ("output", "buf5")),
                                 ("aten::mm", [], ("output", "buf4"))])

    def test_an_extern_call_without_the_comment_takes_its_ir_nodes_origins(self):
        sources = {"linear": ["head"], "index_put": ["pick"], "scatter_add": ["patch_drop"],
                   "full_default": [None]}
        # The scheduler's extern nodes: two mutate buf2, in the order the code calls them; the
        # addmm's origins go unread (its comment names its nodes); the mm's origins are a
        # placeholder only.
        externs = ExternOrigins([
            IrNode("buf1", [fx_node("addmm", "linear")]),
            IrNode("buf3", [fx_node("index_put"), fx_node("view_6", "linear")], ["buf2"]),
            IrNode("buf6", [fx_node("scatter_add"), fx_node("full_default"),
                            fx_node("scatter_add_1", "scatter_add")], ["buf2"]),
            IrNode("buf4", [fx_node("primals_3", op="placeholder")])])
        calls = graph_table("backward", sources, CODE, externs)["extern_calls"]
        self.assertEqual([(call["op"], call["nodes_from"], call["nodes"]) for call in calls],
                         [("aten::addmm", "comment", 1), ("aten::index_put_", "ir_origins", 2),
                          ("aten::scatter_reduce_", "ir_origins", 2),
                          ("aten::randint", "none", 0), ("aten::mm", "none", 0)])
        self.assertEqual(calls[1]["instances"], [{"path": "pick", "nodes": 1.0},
                                                 {"path": "head", "nodes": 1.0}])
        # scatter_add and scatter_add_1 are one source node; full_default holds no instance.
        self.assertEqual(calls[2]["instances"], [{"path": "patch_drop", "nodes": 1.0}])
        self.assertEqual(externs.take(("mutated", "buf2")), [], "each node is taken once")

    def test_a_kernel_fused_across_instances_holds_each_its_share_of_nodes(self):
        sources = {"x_1": ["norm_pre"], "getitem": ["patch_drop"], "cat": ["patch_drop"],
                   "linear": ["head", None]}  # linear became two post-grad nodes, one without
        self.assertEqual(kernel_entry(["x_1", "getitem", "cat"], sources),
                         {"nodes": 3, "instances": [{"path": "patch_drop", "nodes": 2.0},
                                                    {"path": "norm_pre", "nodes": 1.0}]})
        self.assertEqual(kernel_entry(["linear", "unknown"], sources),
                         {"nodes": 2, "instances": [{"path": "head", "nodes": 0.5}]})
        table = graph_table("forward", sources, CODE)
        self.assertEqual([call["nodes"] for call in table["extern_calls"]], [1, 0, 0, 0, 0])


@unittest.skipUnless(hasattr(torch, "compile"), "torch 1.x has no torch.compile")
class CompiledMlp(unittest.TestCase):
    def test_each_extern_call_of_both_graphs_goes_to_its_instance(self):
        import torch._inductor.config as config
        users = config.post_grad_custom_post_pass
        deterministic = torch.are_deterministic_algorithms_enabled()
        recorder = ProvenanceRecorder()
        recorder.install()
        try:
            torch.use_deterministic_algorithms(True)
            model = torch.compile(Mlp(16, 32, drop_tokens=True))
            model(torch.randn(4, 8, 16)).sum().backward()
        finally:
            config.post_grad_custom_post_pass = users
            torch.use_deterministic_algorithms(deterministic)
            torch._dynamo.reset()
        tables = recorder.tables()
        self.assertEqual([table["direction"] for table in tables], ["forward", "backward"])
        linears = {"blocks.0.fc1", "blocks.0.fc2", "blocks.1.fc1", "blocks.1.fc2"}
        for table in tables:
            matrix_multiplies = [call for call in table["extern_calls"]
                                 if call["op"] in ("aten::mm", "aten::addmm")]
            held = {instance["path"] for call in matrix_multiplies
                    for instance in call["instances"]}
            self.assertTrue(linears <= held, (table["direction"], held))
            self.assertTrue(all(call["nodes_from"] == "comment" for call in matrix_multiplies))
        scatters = [call for call in tables[1]["extern_calls"]
                    if call["op"] == "aten::scatter_reduce_"]
        self.assertEqual(len(scatters), 1, tables[1]["extern_calls"])
        self.assertEqual(scatters[0]["nodes_from"], "ir_origins")
        self.assertEqual(scatters[0]["instances"][0]["path"], "drop")


if __name__ == "__main__":
    unittest.main()
