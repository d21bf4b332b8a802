"""The tensors of a module's call, whatever the calling convention (advisor_probe.call_inputs)."""

import collections
import dataclasses
import unittest

import torch
import torch.nn as nn

from advisor_probe import call_inputs


class Causal(nn.Module):
    """A Hugging Face-style model: everything by keyword, the loss in its output."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)

    def forward(self, input_ids=None, attention_mask=None, labels=None):
        return {"loss": self.embed(input_ids).mean()}


@dataclasses.dataclass
class Batch:
    pixels: torch.Tensor
    labels: torch.Tensor


class Encoding(collections.UserDict):
    """What a tokenizer returns (transformers' BatchEncoding is a UserDict)."""


class SeenByAGlobalHook(unittest.TestCase):
    def call(self, module, *args, **kwargs):
        seen = []

        def hook(called, hook_args):
            if called is module:
                seen.append(call_inputs.call_tensors(called, hook_args))

        handle = nn.modules.module.register_module_forward_pre_hook(hook)
        try:
            module(*args, **kwargs)
        finally:
            handle.remove()
        self.assertEqual(len(seen), 1)
        return seen[0]

    def test_keyword_arguments_are_found(self):
        ids = torch.randint(0, 50, (4, 7))
        mask = torch.ones(4, 7)
        tensors = self.call(Causal(), input_ids=ids, attention_mask=mask, labels=ids)
        self.assertEqual(len(tensors), 3)
        self.assertIs(tensors[0], ids)
        self.assertIs(tensors[1], mask)
        self.assertIs(call_inputs.batched_tensor(tensors), ids)

    def test_positional_before_keyword(self):
        ids = torch.randint(0, 50, (2, 3))
        labels = torch.randint(0, 50, (2, 3))
        tensors = self.call(Causal(), ids, labels=labels)
        self.assertEqual([id(t) for t in tensors], [id(ids), id(labels)])

    def test_a_call_without_keywords_has_none(self):
        x = torch.randn(3, 5)
        self.assertEqual([id(t) for t in self.call(nn.Linear(5, 2), x)], [id(x)])


class NestedInputs(unittest.TestCase):
    def test_dicts_lists_dataclasses_and_user_dicts(self):
        a, b, c, d = (torch.randn(2, 1) for _ in range(4))
        value = ({"first": a, "rest": [b, Batch(c, torch.zeros(2))]}, Encoding(ids=d))
        found = list(call_inputs.tensors_in(value))
        self.assertEqual(len(found), 5)
        self.assertEqual([id(t) for t in found[:3]], [id(a), id(b), id(c)])
        self.assertIs(found[4], d)

    def test_nesting_is_bounded(self):
        deep = torch.randn(1)
        for _ in range(10):
            deep = [deep]
        self.assertEqual(list(call_inputs.tensors_in(deep)), [])

    def test_the_batch_skips_scalars(self):
        scalar, batch = torch.tensor(1.0), torch.randn(6, 2)
        self.assertIs(call_inputs.batched_tensor([scalar, batch]), batch)
        self.assertIsNone(call_inputs.batched_tensor([scalar]))


if __name__ == "__main__":
    unittest.main()
