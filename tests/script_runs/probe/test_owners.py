"""Instances named through the module that holds them where its own forward is never called (issue
#26): a LightningModule's training_step calling `self.head(self.encoder(x))`, a hand-written
trainer calling `self.model.encoder(x)`. The session's discovery hooks run on real calls; the
paths are those of the model message the probe sends advisor."""

import importlib
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

from advisor_probe.session import Session


class _Channel:
    """advisor's end, kept in memory: the messages sent, and `detach` as the first command, which
    leaves the probe idle once the model is described."""

    def __init__(self):
        self.sent = []

    def send(self, message):
        self.sent.append(message)

    def receive(self):
        return {"op": "detach"}

    def close(self):
        pass


def _encoder():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())


class Classifier(nn.Module):
    """A LightningModule as its docs write one, without Lightning: no forward is ever called."""

    def __init__(self):
        super().__init__()
        self.encoder = _encoder()
        self.head = nn.Linear(16, 4)
        self.loss = nn.CrossEntropyLoss()

    def training_step(self, batch):
        inputs, labels = batch
        return self.loss(self.head(self.encoder(inputs)), labels)


class HandTrainer:
    """A trainer of the user's own that builds and holds the model: no frame holds it itself."""

    def __init__(self):
        self.model = Classifier()
        self.optimizer = torch.optim.Adam(self.model.parameters())

    def step(self, batch):
        hidden = self.model.encoder(batch[0])
        return F.cross_entropy(self.model.head(hidden), batch[1])


class OptimizedModule(nn.Module):
    """Stands in for torch.compile's wrapper, which advisor recognises by class name and
    attribute, and never looks inside."""

    def __init__(self, module):
        super().__init__()
        self._orig_mod = module


class LazyProxy:
    """An object that stands for another and runs code for every look at it, as lazy-loading
    proxies do: the probe's search of the frames must not set it off."""

    @property
    def __class__(self):
        raise RuntimeError("the proxy's target was loaded")

    @property
    def __dict__(self):
        raise RuntimeError("the proxy's target was loaded")


def _batch():
    return torch.randn(5, 8), torch.randint(0, 4, (5,))


def described_modules(step, optimizer):
    """path -> the module the probe describes after two training steps of `step` (a function of the
    batch returning the loss): the first finds the model, the second's first call describes it."""
    channel = _Channel()
    session = Session(channel)
    failures = []
    session._fatal = failures.append  # which would end this process, the tests with it
    hooks = importlib.import_module("torch.nn.modules.module")
    session._discovery = [hooks.register_module_forward_pre_hook(session._discover_enter),
                          hooks.register_module_forward_hook(session._discover_exit)]
    handles = list(session._discovery)
    try:
        for _ in range(2):
            loss = step(_batch())
            session._backward_starts(loss)
            loss.backward()
            session._backward_ends()
            session._optimizer_starts(optimizer)
            optimizer.step()
            session._optimizer_ends()
    finally:
        for handle in handles:
            handle.remove()
    models = [m for m in channel.sent if m["type"] == "model"]
    assert not failures and len(models) == 1, (failures, channel.sent)
    return {module["path"]: module for module in models[0]["modules"]}


class OwnerNamesTest(unittest.TestCase):
    def test_a_training_step_names_its_children_by_attribute(self):
        model = Classifier()
        paths = described_modules(model.training_step, torch.optim.Adam(model.parameters()))
        self.assertIn("encoder.2", paths)
        self.assertIn("head", paths)
        self.assertIn("loss", paths, "the owner's children without parameters are described too")
        self.assertFalse(any(p.startswith("Sequential") for p in paths), sorted(paths))

    def test_a_trainer_objects_model_is_the_owner(self):
        trainer = HandTrainer()
        paths = described_modules(trainer.step, trainer.optimizer)
        self.assertIn("encoder.2", paths)
        self.assertIn("head", paths)

    def test_a_wrapper_in_the_frames_gives_the_module_it_wraps(self):
        # The loop holds the compiled wrapper alone and calls the children through it: the owner
        # is the module inside, which is no compiled region to keep out of.
        compiled = OptimizedModule(Classifier())

        def step(batch):
            hidden = compiled._orig_mod.encoder(batch[0])
            return F.cross_entropy(compiled._orig_mod.head(hidden), batch[1])

        modules = described_modules(step, torch.optim.Adam(compiled.parameters()))
        self.assertIn("encoder.2", modules)
        self.assertEqual(modules[""]["opaque"], "")
        self.assertTrue(modules[""]["type"].endswith(".Classifier"), modules[""])

    def test_a_proxy_in_the_frames_is_left_alone(self):
        model, proxy = Classifier(), LazyProxy()  # in this frame, a caller of the step's
        paths = described_modules(model.training_step, torch.optim.Adam(model.parameters()))
        self.assertIn("encoder.2", paths)
        self.assertIsNotNone(proxy)

    def test_two_unrelated_roots_keep_their_class_names(self):
        generator, critic = _encoder(), nn.Linear(16, 1)
        optimizer = torch.optim.Adam(list(generator.parameters()) + list(critic.parameters()))
        paths = described_modules(lambda batch: critic(generator(batch[0])).mean(), optimizer)
        self.assertIn("Sequential.2", paths)
        self.assertIn("Linear", paths)

    def test_two_owners_of_the_same_roots_name_neither(self):
        model = Classifier()
        twin = Classifier()
        twin.encoder, twin.head = model.encoder, model.head
        paths = described_modules(model.training_step, torch.optim.Adam(model.parameters()))
        self.assertIn("Sequential.2", paths, "ambiguous: neither owner's names are taken")

    def test_a_called_root_keeps_its_own_paths(self):
        model = nn.Sequential(_encoder(), nn.Linear(16, 4))
        holder = Classifier()
        holder.encoder = model
        paths = described_modules(lambda batch: F.cross_entropy(model(batch[0]), batch[1]),
                                  torch.optim.Adam(model.parameters()))
        self.assertIn("0.2", paths, "one root is the model, whatever holds it")


if __name__ == "__main__":
    unittest.main()
