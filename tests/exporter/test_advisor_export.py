"""scripts/advisor_export.py as a command on hostile input: one line on stderr, exit status 1,
never a Python traceback (a JSON nested 10^5 deep raised RecursionError, an impossible shape
RuntimeError)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import torch
from torch import nn

EXPORTER = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "advisor_export.py")


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


WORKLOAD = {"inputs": [{"shape": [4, 8], "dtype": "float32", "init": "randn"}],
            "target": {"shape": [4], "dtype": "int64", "init": "randint", "high": 4},
            "loss": "cross_entropy", "optimizer": {"name": "sgd", "lr": 0.1}}


class ExporterOnHostileInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.archive = os.path.join(self.dir.name, "tiny.pt")
        torch.jit.save(torch.jit.script(Tiny().train()), self.archive)

    def tearDown(self):
        self.dir.cleanup()

    def embed(self, workload_text):
        path = os.path.join(self.dir.name, "workload.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(workload_text)
        out = os.path.join(self.dir.name, "out.pt")
        done = subprocess.run([sys.executable, EXPORTER, "embed", self.archive, path, "-o", out],
                              capture_output=True, text=True, check=False)
        return done, path

    def assert_one_line(self, done, *fragments):
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertTrue(done.stderr.startswith("advisor_export: error: "), done.stderr)
        for fragment in fragments:
            self.assertIn(fragment, done.stderr)

    def test_json_nested_too_deeply_is_one_line(self):
        done, path = self.embed("[" * 100000 + "]" * 100000)
        self.assert_one_line(done, path + ": JSON nested too deeply to read")

    def test_an_impossible_shape_is_refused_naming_the_field(self):
        workload = dict(WORKLOAD, inputs=[{"shape": [2 ** 40, 2 ** 40], "dtype": "float32",
                                           "init": "randn"}])
        done, _ = self.embed(json.dumps(workload))
        self.assert_one_line(done, "workload.inputs[0].shape: 1099511627776 x 1099511627776 "
                                   "elements are more than the 2147483648")

    def test_a_good_workload_still_embeds(self):
        done, _ = self.embed(json.dumps(WORKLOAD))
        self.assertEqual(done.returncode, 0, done.stderr)


if __name__ == "__main__":
    unittest.main()
