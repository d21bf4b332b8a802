"""The probe's knobs as the autotest applies them: torch.compile's run for the numerics check."""

import sys
import types
import unittest
from unittest import mock

import torch

from advisor_probe.knobs import Knobs


class CompileKnobTest(unittest.TestCase):
    def setUp(self):
        # torch 1.x has no compiler: a stand-in records what the knob asks of it. On torch 2.x
        # the real inductor config is used and restored.
        try:
            import torch._inductor.config as config
            self.config = config
            self.addCleanup(setattr, config, "fallback_random", config.fallback_random)
            config.fallback_random = False
            modules = {}
        except ImportError:
            self.config = types.SimpleNamespace(fallback_random=False)
            inductor = types.ModuleType("torch._inductor")
            inductor.config = self.config
            modules = {"torch._inductor": inductor, "torch._inductor.config": self.config}
        patcher = mock.patch.dict(sys.modules, modules)
        patcher.start()
        self.addCleanup(patcher.stop)
        compiled = mock.MagicMock(side_effect=lambda forward: ("compiled", forward))
        patcher = mock.patch.object(torch, "compile", compiled, create=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_the_numerics_run_draws_random_numbers_as_eager_code_does(self):
        model = torch.nn.Linear(2, 2)
        forward = model.forward
        Knobs({"compile": True}, numerics=True).at_model([model], cuda=False)
        self.assertEqual(model.forward, ("compiled", forward))
        self.assertTrue(self.config.fallback_random,
                        "compiled random ops must match the eager baseline's draws")

    def test_the_timed_runs_compile_as_the_user_would(self):
        model = torch.nn.Linear(2, 2)
        Knobs({"compile": True}).at_model([model], cuda=False)
        self.assertEqual(model.forward[0], "compiled")
        self.assertFalse(self.config.fallback_random)


if __name__ == "__main__":
    unittest.main()
