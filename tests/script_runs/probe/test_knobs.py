"""The probe's knobs as the autotest applies them: torch.compile's run for the numerics check."""

import sys
import types
import unittest
from unittest import mock

import torch

from advisor_probe import knobs
from advisor_probe.knobs import Knobs
from advisor_probe.modules import ModuleTree


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
        self.compile_calls = []

        def compiled(forward, **options):
            self.compile_calls.append(options)
            return ("compiled", forward)
        compiled = mock.MagicMock(side_effect=compiled)
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


    def test_a_mode_is_passed_to_torch_compile(self):
        model = torch.nn.Linear(2, 2)
        Knobs({"compile_mode": "max-autotune"}).at_model([model], cuda=False)
        self.assertEqual(model.forward[0], "compiled")
        self.assertEqual(self.compile_calls, [{"mode": "max-autotune"}])

    def test_regional_compiles_each_repeated_block_alone_and_leaves_the_rest_eager(self):
        model = torch.nn.Sequential(torch.nn.Linear(2, 4),
                                    torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)]))
        blocks = list(model[1])
        forwards = [block.forward for block in blocks]
        with mock.patch("advisor_probe.regional.raise_recompile_limit") as raise_limit:
            Knobs({"compile_mode": "regional"}).at_model([model], cuda=False)
        self.assertEqual([block.forward for block in blocks],
                         [("compiled", forward) for forward in forwards])
        self.assertNotIn("forward", vars(model), "the root stays eager")
        self.assertNotIn("forward", vars(model[0]))
        self.assertEqual(self.compile_calls, [{}, {}, {}], "torch.compile's default for each")
        raise_limit.assert_called_once_with(3)


class CompileModeTest(unittest.TestCase):
    """torch.compile's modes as knobs (compile_mode): what a candidate asks for, what its
    numerics check compiles, and where a mode has nothing to apply to."""

    def test_the_request_says_the_mode_and_whether_random_numbers_are_eagers(self):
        self.assertIsNone(knobs.compile_request({"allow_tf32": True}))
        self.assertEqual(knobs.compile_request({"compile": True}), (None, False))
        self.assertEqual(knobs.compile_request({"compile_mode": "regional"}), ("regional", False))
        self.assertEqual(knobs.compile_request(knobs.as_checked({"compile_mode": "max-autotune"})),
                         ("max-autotune", True))

    @unittest.skipUnless(hasattr(torch, "compile"), "this torch has no torch.compile")
    def test_the_checks_compile_keeps_the_modes_kernels_without_its_cuda_graphs(self):
        with mock.patch.object(torch, "compile") as compile_:
            knobs.compiled(len, eager_random=True, mode="max-autotune")
        options = compile_.call_args.kwargs["options"]
        self.assertTrue(options["max_autotune"])
        self.assertTrue(options["fallback_random"])
        self.assertNotIn("triton.cudagraphs", options)

    def test_a_model_the_script_compiled_is_not_compiled_again(self):
        compiled = type("OptimizedModule", (torch.nn.Module,), {})()
        reason = knobs.compile_mode_not_applied("max-autotune", [compiled])
        self.assertIn("the script compiles its model itself", reason)
        self.assertIn('pass mode="max-autotune" to the script\'s own torch.compile call', reason)
        self.assertIn("compile each repeated block in the script",
                      knobs.compile_mode_not_applied("regional", [compiled]))

    def test_regional_needs_repeated_blocks(self):
        lone = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
        self.assertIn("no ModuleList or Sequential of two or more blocks of one class",
                      Knobs({"compile_mode": "regional"}).not_applied([lone]))
        self.assertEqual(Knobs({"compile_mode": "max-autotune"}).not_applied([lone]), "")


class DdpKnobTest(unittest.TestCase):
    """DistributedDataParallel's constructor arguments, set where the script builds one."""

    def setUp(self):
        ddp = torch.nn.parallel.DistributedDataParallel
        self.addCleanup(setattr, ddp, "__init__", ddp.__init__)
        self.seen = {}

        def fake_init(module, inner, device_ids=None, bucket_cap_mb=25,
                      gradient_as_bucket_view=False, static_graph=False):
            self.seen.update(bucket_cap_mb=bucket_cap_mb, static_graph=static_graph,
                             gradient_as_bucket_view=gradient_as_bucket_view)

        ddp.__init__ = fake_init  # no process group needed: the knob wraps whatever is there

    def test_the_scripts_ddp_is_built_with_the_knobs_arguments(self):
        knobs = Knobs({"ddp_bucket_cap_mb": 100, "ddp_static_graph": True})
        knobs.at_import()
        self.assertEqual(knobs.not_applied(), "the script builds no "
                                              "torch.nn.parallel.DistributedDataParallel")
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2), bucket_cap_mb=25)
        self.assertEqual(self.seen, {"bucket_cap_mb": 100, "static_graph": True,
                                     "gradient_as_bucket_view": False})
        self.assertEqual(knobs.not_applied(), "")

    def test_no_sync_spares_all_but_the_last_micro_step_of_each_step(self):
        ddp = torch.nn.parallel.DistributedDataParallel
        self.addCleanup(setattr, ddp, "forward", ddp.forward)
        synced = []
        ddp.forward = lambda module, inputs: synced.append(module.require_backward_grad_sync)
        knobs = Knobs({"ddp_no_sync": True})
        knobs.at_import()
        model = ddp(torch.nn.Linear(2, 2))
        model.require_backward_grad_sync = True
        for _ in range(3):  # optimizer steps of three micro-steps each
            for _ in range(3):
                ddp.forward(model, None)
            knobs.optimizer_stepped()
        # The first step syncs every micro-step (it counts them), as the script does.
        self.assertEqual(synced, [True, True, True] + [False, False, True] * 2)
        self.assertEqual(knobs.not_applied(), "")

    def test_no_sync_without_accumulation_has_nothing_to_apply(self):
        ddp = torch.nn.parallel.DistributedDataParallel
        self.addCleanup(setattr, ddp, "forward", ddp.forward)
        ddp.forward = lambda module, inputs: None
        knobs = Knobs({"ddp_no_sync": True})
        knobs.at_import()
        ddp.forward(ddp(torch.nn.Linear(2, 2)), None)
        knobs.optimizer_stepped()
        self.assertIn("one forward pass per optimizer step", knobs.not_applied())

    def test_a_torch_whose_ddp_lacks_the_argument_is_said_so(self):
        knobs = Knobs({"ddp_gradient_as_bucket_view": True})
        torch.nn.parallel.DistributedDataParallel.__init__ = \
            lambda module, inner, bucket_cap_mb=25: None
        knobs.at_import()
        self.assertEqual(knobs.unsupported,
                         "this torch's DistributedDataParallel takes no gradient_as_bucket_view")


class DataLoaderKnobTest(unittest.TestCase):
    """The pipeline's knobs, applied where the script builds its DataLoader, whatever it passed."""

    def setUp(self):
        loader = torch.utils.data.DataLoader
        self.addCleanup(setattr, loader, "__init__", loader.__init__)
        self.data = torch.utils.data.TensorDataset(torch.zeros(8, 2))

    def test_any_worker_count_the_autotest_gives(self):
        Knobs({"dataloader_workers": 3, "persistent_workers": True}).at_import()
        loader = torch.utils.data.DataLoader(self.data, 4, True, num_workers=1)
        self.assertEqual(loader.num_workers, 3)
        self.assertTrue(loader.persistent_workers)
        self.assertEqual(loader.batch_size, 4, "the script's own arguments stay")

    def test_persistent_workers_stay_off_without_workers(self):
        Knobs({"persistent_workers": True}).at_import()
        loader = torch.utils.data.DataLoader(self.data, batch_size=4)
        self.assertFalse(loader.persistent_workers, "DataLoader refuses them with 0 workers")
        loader = torch.utils.data.DataLoader(self.data, batch_size=4, num_workers=2)
        self.assertTrue(loader.persistent_workers)


    def test_the_numerics_runs_draw_each_items_randomness_from_its_index(self):
        # An augmentation that draws from Python's and torch's generators, as scripts do.
        class Jitter(torch.utils.data.Dataset):
            def __len__(self):
                return 16

            def __getitem__(self, index):
                import random
                return torch.tensor([index + random.random(), float(torch.rand(()))])

        original_init = torch.utils.data.DataLoader.__init__

        def batches(workers, numerics):
            torch.utils.data.DataLoader.__init__ = original_init  # one run's knobs at a time
            Knobs({"dataloader_workers": workers}, numerics=numerics).at_import()
            loader = torch.utils.data.DataLoader(Jitter(), batch_size=4, num_workers=1)
            return torch.cat(list(loader))

        self.assertTrue(torch.equal(batches(1, True), batches(2, True)),
                        "the same items whichever worker prepares them")
        self.assertFalse(torch.equal(batches(1, False), batches(2, False)),
                         "without it a worker's own seed decides (what the check must undo)")



class CheckpointKnobTest(unittest.TestCase):
    """activation-checkpointing: the named instances' forward under torch.utils.checkpoint."""

    def _model(self):
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))

    def test_the_named_instance_is_recomputed_in_backward_with_the_same_gradients(self):
        plain, checkpointed = self._model(), self._model()
        calls = []
        forward = checkpointed[0].forward
        checkpointed[0].forward = lambda x: calls.append(x) or forward(x)
        Knobs({"checkpoint_modules": ["0"]}).at_model([checkpointed], cuda=False,
                                                     tree=ModuleTree([checkpointed]))
        x = torch.randn(3, 4, requires_grad=True)
        plain(x).square().sum().backward()
        checkpointed(x).square().sum().backward()
        # Its forward ran twice: once in the forward pass, once recomputed inside the backward.
        self.assertEqual(len(calls), 2)
        for a, b in zip(plain.parameters(), checkpointed.parameters()):
            self.assertTrue(torch.allclose(a.grad, b.grad))

    def test_a_container_never_called_is_checkpointed_member_by_member(self):
        # A GPT-2's transformer.h: a ModuleList the model iterates, whose own forward never runs.
        class Stack(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.h = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))

            def forward(self, x):
                for block in self.h:
                    x = torch.tanh(block(x))
                return x

        self._checkpointed_container(Stack)

    def test_a_key_value_cache_is_turned_off_so_the_recomputed_forward_sees_the_same_keys(self):
        # A transformers-style decoder: with config.use_cache each block appends its keys to the
        # cache the model passes it and attends over all the cache holds, under a mask of the
        # input's length. Recomputed in the backward, a block would append its keys again.
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.key = torch.nn.Linear(4, 4)

            def forward(self, x, cache=None):
                keys = self.key(x)
                if cache is not None:
                    cache.setdefault(id(self), []).append(keys)
                    keys = torch.cat(cache[id(self)])
                mask = torch.zeros(x.shape[0], x.shape[0])
                return torch.softmax(x @ keys.T + mask, dim=-1) @ keys

        class Decoder(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.config = types.SimpleNamespace(use_cache=True)
                self.h = torch.nn.ModuleList(Block() for _ in range(2))

            def forward(self, x):
                cache = {} if self.config.use_cache else None
                for block in self.h:
                    x = block(x, cache=cache)
                return x

        for model in self._checkpointed_container(Decoder):
            self.assertFalse(model.config.use_cache)

    def test_an_instance_the_model_lacks_is_not_applied(self):
        model = self._model()
        knobs = Knobs({"checkpoint_modules": ["7"]})
        self.assertEqual(knobs.not_applied([model], ModuleTree([model])),
                         "the model has no module instance 7 to checkpoint")
        self.assertEqual(Knobs({"checkpoint_modules": ["2"]}).not_applied([model],
                                                                         ModuleTree([model])), "")

    def _checkpointed_container(self, make_model):
        """Checkpoints `h`, a container of two blocks, from the first step's forward and from
        at_model alone, checks that each block's forward was recomputed once in one forward and
        backward; returns the two models."""
        models = []
        for at_first_forward in (False, True):
            model = make_model()
            calls = [self._recomputed(block) for block in model.h]
            knobs = Knobs({"checkpoint_modules": ["h"]})
            x = torch.randn(3, 4, requires_grad=True)
            if at_first_forward:
                knobs.at_first_forward(model, (x,))
            knobs.at_model([model], cuda=False, tree=ModuleTree([model]))
            model(x).sum().backward()
            self.assertEqual([len(c) for c in calls], [2, 2],
                             "each block recomputed once, at_first_forward=%s" % at_first_forward)
            models.append(model)
        return models

    def _recomputed(self, module):
        """The number of times `module`'s forward runs in one forward and backward of it."""
        calls = []
        forward = module.forward
        module.forward = lambda x, **kwargs: calls.append(x) or forward(x, **kwargs)
        return calls

    def test_from_the_first_steps_forward_and_not_twice_once_the_model_is_known(self):
        model = self._model()
        calls = self._recomputed(model[0])
        knobs = Knobs({"checkpoint_modules": ["0"]})
        x = torch.randn(3, 4, requires_grad=True)
        knobs.at_first_forward(model, (x,))
        model(x).sum().backward()
        self.assertEqual(len(calls), 2, "checkpointed in the first step, before at_model")
        knobs.at_model([model], cuda=False, tree=ModuleTree([model]))
        del calls[:]
        model(x).sum().backward()
        self.assertEqual(len(calls), 2, "one checkpoint, not one inside another")

    def test_an_instance_the_model_names_otherwise_is_unwrapped(self):
        # Step 0's training forward called another module than the model found when step 1
        # starts (several roots, named by what holds them): its "0" is not the model's.
        first, found = self._model(), self._model()
        first_calls, found_calls = self._recomputed(first[0]), self._recomputed(found[0])
        knobs = Knobs({"checkpoint_modules": ["0"]})
        knobs.at_first_forward(first, (torch.randn(3, 4),))
        knobs.at_model([found], cuda=False, tree=ModuleTree([found]))
        x = torch.randn(3, 4, requires_grad=True)
        first(x).sum().backward()
        found(x).sum().backward()
        self.assertEqual(len(first_calls), 1, "step 0's wrap undone")
        self.assertEqual(len(found_calls), 2)

    def test_a_path_the_first_call_lacks_waits_for_the_model(self):
        model = self._model()
        calls = self._recomputed(model[2])
        knobs = Knobs({"checkpoint_modules": ["2", "9"]})
        knobs.at_first_forward(model, (torch.randn(3, 4),))
        model(torch.randn(3, 4, requires_grad=True)).sum().backward()
        self.assertEqual(len(calls), 1, "all the paths or none")


if __name__ == "__main__":
    unittest.main()
