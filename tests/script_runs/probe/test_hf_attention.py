"""The hf-sdpa-attention knob: a transformers model's eager attention switched to SDPA once the
model is known, and the reasons it is not applied. The switch needs transformers (the modern-torch
lane); the reasons for a model that is not a transformers model run everywhere."""

import importlib.util
import sys
import unittest
from unittest import mock

import torch

from advisor_probe.blocks import Switches
from advisor_probe.knobs import Knobs

HAS_TRANSFORMERS = importlib.util.find_spec("transformers") is not None


def tiny_gpt2():
    import transformers

    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=97,
                                     n_positions=64, bos_token_id=0, eos_token_id=0,
                                     attn_implementation="eager")
    return transformers.GPT2LMHeadModel(config).train()  # attention dropout 0.1, as GPT-2's


def sdpa_backends():
    cuda = torch.backends.cuda
    return (cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.math_sdp_enabled())


class NotATransformersModelTest(unittest.TestCase):
    def test_a_script_without_transformers_has_nothing_to_switch(self):
        with mock.patch.dict(sys.modules, {"transformers": None}):
            reason = Knobs({"attn_implementation": "sdpa"}).not_applied([torch.nn.Linear(2, 2)])
        self.assertEqual(reason, "the script's model is not a transformers model (the script "
                                 "imported no transformers)")


@unittest.skipUnless(HAS_TRANSFORMERS, "this Python has no transformers")
class SwitchToSdpaTest(unittest.TestCase):
    def setUp(self):
        flash, efficient, math = sdpa_backends()
        cuda = torch.backends.cuda
        self.addCleanup(cuda.enable_flash_sdp, flash)
        self.addCleanup(cuda.enable_mem_efficient_sdp, efficient)
        self.addCleanup(cuda.enable_math_sdp, math)
        self.ids = torch.randint(0, 97, (3, 40), generator=torch.Generator().manual_seed(1))

    def losses(self, knobs):
        """Three training steps' losses; `knobs` applied after the first, as the probe does."""
        model, losses = tiny_gpt2(), []
        for step in range(3):
            if step == 1 and knobs is not None:
                self.assertEqual(knobs.not_applied([model]), "")
                knobs.at_model([model], cuda=False)
            torch.manual_seed(10 + step)
            loss = model(input_ids=self.ids, labels=self.ids).loss
            losses.append(loss.item())
            loss.backward()
        return model, losses

    def test_the_numerics_run_switches_to_sdpa_with_eager_attentions_dropout_mask(self):
        _, eager = self.losses(None)
        calls = mock.Mock(wraps=torch.nn.functional.scaled_dot_product_attention)
        with mock.patch.object(torch.nn.functional, "scaled_dot_product_attention", calls):
            model, switched = self.losses(Knobs({"attn_implementation": "sdpa"}, numerics=True))
        self.assertEqual(model.config._attn_implementation, "sdpa")
        self.assertEqual(calls.call_count, 2 * 2, "two steps of two layers after the switch")
        self.assertGreater(calls.call_args.kwargs["dropout_p"], 0.0)
        self.assertEqual(sdpa_backends(), (False, False, True), "the math backend's dropout")
        for a, b in zip(eager, switched):
            self.assertAlmostEqual(a, b, delta=1e-5 * abs(a))

    def test_blocks_switch_to_sdpa_and_back_between_steps(self):
        model = tiny_gpt2()
        switches = Switches([model], cuda=False, physical_cores=lambda: 1)
        switches.set({"attn_implementation": "sdpa"})
        self.assertEqual(model.transformer.h[1].attn.config._attn_implementation, "sdpa")
        switches.set({})
        self.assertEqual(model.transformer.h[1].attn.config._attn_implementation, "eager")
        with self.assertRaisesRegex(RuntimeError, "advisor cannot switch the attention: "):
            Switches([torch.nn.Linear(2, 2)], cuda=False,
                     physical_cores=lambda: 1).set({"attn_implementation": "sdpa"})

    def test_a_model_transformers_cannot_switch_is_skipped_with_the_change_to_make(self):
        model = tiny_gpt2()
        with mock.patch.object(type(model), "_can_set_attn_implementation", return_value=False):
            reason = Knobs({"attn_implementation": "sdpa"}).not_applied([model])
        self.assertIn("cannot switch GPT2LMHeadModel's attention after it is built", reason)
        self.assertTrue(reason.endswith('load it with attn_implementation="sdpa" instead'), reason)

    def test_a_model_already_on_sdpa_is_not_switched(self):
        model = tiny_gpt2()
        model.set_attn_implementation("sdpa")
        self.assertEqual(Knobs({"attn_implementation": "sdpa"}).not_applied([model]),
                         "the script's model has no transformers PreTrainedModel whose attention "
                         "is \"eager\"")


if __name__ == "__main__":
    unittest.main()
