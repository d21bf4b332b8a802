"""The input pipeline measured where it runs: in the DataLoader's worker processes, and in the main
process with workers 0 (input_stage.py, stage_worker.py), on the seed's pipeline
(tests/script_runs/pipeline_train.py): the dilation named, with its line, its shapes and its
mask."""

import os
import sys
import unittest

import torch
from torch.utils.data import DataLoader

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pipeline_train  # noqa: E402 (the test's script, beside this folder)

from advisor_probe.input_stage import InputStage  # noqa: E402

SCRIPT = os.path.abspath(pipeline_train.__file__)


def _dataset():
    return pipeline_train.Scenes(256, pipeline_train.Compose(
        [pipeline_train.RandomDilation(max_radius=12), pipeline_train.RandomCrop(224)]))


def _line_of(text):
    with open(SCRIPT) as source:
        for number, line in enumerate(source, 1):
            if text in line:
                return number
    raise AssertionError(text)


class InputStageTest(unittest.TestCase):
    def measure(self, workers, batches=12, **loader_options):
        """Iterates a loader as a script does, measuring from its first batch on."""
        stage = InputStage()
        self.addCleanup(stage.close)
        loader = DataLoader(_dataset(), batch_size=8, num_workers=workers, **loader_options)
        original_init = loader.worker_init_fn
        restore = stage.iterating(loader)
        iterator = iter(loader)
        restore()
        self.assertIs(loader.worker_init_fn, original_init, "the loader's own is put back")
        stage.start()
        for _ in range(batches):
            next(iterator)
        message = stage.finish()
        del iterator
        return message, loader

    def check_pipeline(self, message, workers):
        self.assertEqual(message["workers"], workers)
        self.assertEqual(message["cores"], len(os.sched_getaffinity(0)))
        self.assertEqual(message["output"], [[4, 224, 224], "float32"])
        batches = message["batches"]
        self.assertGreaterEqual(len(batches), 6, "those begun once measuring began")
        for batch in batches:
            self.assertEqual(batch["items"], 8)
            self.assertLess(batch["start"], batch["end"])
        pieces = {piece["path"]: piece for piece in message["pieces"]}
        dilation = pieces["transform.transforms[0]"]
        self.assertEqual(dilation["name"], "RandomDilation")
        self.assertEqual(dilation["input_shape"], [1, 256, 256], "the mask, not the image")
        self.assertEqual(dilation["dtype"], "float32")
        self.assertTrue(dilation["input_is_binary"], "a mask of 0/1 held in float")
        self.assertEqual(dilation["defined_at"][:2],
                         [SCRIPT, pipeline_train.RandomDilation.__call__.__code__.co_firstlineno])
        crop = pieces["transform.transforms[1]"]
        self.assertEqual(crop["name"], "RandomCrop")
        self.assertEqual(crop["output_shape"], [3, 224, 224])
        self.assertIn("collate_fn", pieces)
        self.assertEqual(pieces["collate_fn"]["name"], "default_collate")

        # The dilation's time is the batch's most: its convolution's line, named by its op.
        index = {path: i for i, path in enumerate(p["path"] for p in message["pieces"])}

        def total(i):
            return sum(ns for batch in batches for piece, ns in batch["pieces"] if piece == i)

        self.assertGreater(total(index["transform.transforms[0]"]),
                           5 * total(index["transform.transforms[1]"]))
        sampled = sum(batch["sampled"] for batch in batches)
        self.assertGreater(sampled, 0)
        line_ns = {}
        for batch in batches:
            for line, ns in batch["lines"]:
                line_ns[line] = line_ns.get(line, 0) + ns
        heaviest = message["lines"][max(line_ns, key=line_ns.get)]
        self.assertEqual(heaviest[:2], [SCRIPT, _line_of("grown = F.conv2d(")])
        self.assertIn("F.conv2d(mask.unsqueeze(0), kernel", heaviest[2])
        self.assertEqual(heaviest[3], "torch.conv2d")
        # Lines count their own time only: the line that calls the transforms is not charged
        # with them again.
        calling = _line_of("image, mask = self.transform((image, mask))")
        for i, (filename, number, _, _) in enumerate(message["lines"]):
            if number == calling:
                self.assertLess(line_ns[i], line_ns[max(line_ns, key=line_ns.get)] / 10)

    def test_worker_processes_report_their_pipeline(self):
        message, _ = self.measure(workers=2)
        self.check_pipeline(message, 2)
        self.assertEqual({batch["worker"] for batch in message["batches"]}, {1, 2},
                         "batches from both worker processes, none from the main process")

    def test_spawned_workers_get_the_probe_by_pickle(self):
        message, _ = self.measure(workers=1, multiprocessing_context="spawn")
        self.check_pipeline(message, 1)

    def test_the_main_process_with_workers_0_is_instrumented_for_the_window_only(self):
        from torch.utils.data._utils.fetch import _MapDatasetFetcher

        getitem, fetch = pipeline_train.Scenes.__getitem__, _MapDatasetFetcher.fetch
        # One intra-op thread, as in a DataLoader worker: on 16 threads the convolution ran
        # below the single-threaded torch.rand (5.9 against 9.9 ms a batch, PyTorch 2.11), and
        # check_pipeline's heaviest line would be the machine's, not the dilation's.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        self.addCleanup(torch.set_num_threads, threads)
        message, loader = self.measure(workers=0)
        self.check_pipeline(message, 0)
        self.assertEqual({batch["worker"] for batch in message["batches"]}, {0})
        transforms = loader.dataset.transform.transforms
        self.assertIsInstance(transforms[0], pipeline_train.RandomDilation,
                              "the script's own objects are back after the window")
        self.assertIs(pipeline_train.Scenes.__getitem__, getitem)
        self.assertIs(_MapDatasetFetcher.fetch, fetch)

    def test_nothing_is_recorded_outside_the_window(self):
        stage = InputStage()
        self.addCleanup(stage.close)
        loader = DataLoader(_dataset(), batch_size=8, num_workers=1)
        restore = stage.iterating(loader)
        iterator = iter(loader)
        restore()
        for _ in range(3):
            next(iterator)
        stage.start()
        message = stage.finish()
        self.assertEqual(message["batches"], [])
        del iterator


class _Double:
    def __call__(self, x):
        return x * 2


class _Stream(torch.utils.data.IterableDataset):
    def __init__(self):
        self.transform = _Double()

    def __iter__(self):
        return (self.transform(torch.full((2,), float(i))) for i in range(16))


class _Odd(torch.utils.data.Dataset):
    """Transforms in a tuple, one behind a read-only property."""

    def __init__(self):
        self.steps = (_Double(), _Double())

    @property
    def final(self):
        return _Double()

    def __len__(self):
        return 16

    def __getitem__(self, index):
        x = torch.full((2,), float(index))
        for step in self.steps:
            x = step(x)
        return self.final(x)


class _Pipeline:
    """A hand-written Compose: its steps under a name of its own, not `transforms`."""

    def __init__(self, *steps):
        self.steps = steps

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x


class _KeepsCallbacks:
    """A transform with a list of callables that its call does not run."""

    def __init__(self):
        self.callbacks = [print]

    def __call__(self, x):
        return x * 2


class _Augmented(torch.utils.data.Dataset):
    def __init__(self):
        self.augment = _Pipeline(_Double(), _Double())

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.augment(torch.full((2,), float(index)))


class UnusualDatasetsTest(unittest.TestCase):
    """Datasets the probe takes apart only partly give the same batches as without it."""

    def batches(self, dataset, workers, measured):
        stage = InputStage()
        self.addCleanup(stage.close)
        loader = DataLoader(dataset, batch_size=4, num_workers=workers)
        restore = stage.iterating(loader) if measured else (lambda: None)
        if measured:
            stage.start()  # before the workers start: 4 batches may all be fetched at once
        iterator = iter(loader)
        restore()
        out = torch.cat([b[0] if isinstance(b, list) else b for b in iterator])
        message = stage.finish() if measured else None
        return out, message

    def test_the_same_batches(self):
        for dataset in (torch.utils.data.TensorDataset(torch.arange(16.0)), _Stream(), _Odd(),
                        _Augmented()):
            for workers in (0, 2):
                with self.subTest(dataset=type(dataset).__name__, workers=workers):
                    expected, _ = self.batches(dataset, workers, measured=False)
                    got, message = self.batches(dataset, workers, measured=True)
                    self.assertTrue(torch.equal(got, expected))
                    self.assertTrue(message["batches"], "its batches are timed all the same")

    def test_a_tuple_of_transforms_is_timed_member_by_member(self):
        _, message = self.batches(_Odd(), 0, measured=True)
        self.assertEqual([p["path"] for p in message["pieces"] if p["path"].startswith("steps")],
                         ["steps[0]", "steps[1]"])

    def test_a_hand_written_pipelines_steps_are_timed_step_by_step(self):
        _, message = self.batches(_Augmented(), 0, measured=True)
        self.assertEqual([p["path"] for p in message["pieces"] if p["path"].startswith("augment")],
                         ["augment.steps[0]", "augment.steps[1]"])

    def test_a_transform_that_only_keeps_callables_is_timed_whole(self):
        dataset = _Augmented()
        dataset.augment = _KeepsCallbacks()
        _, message = self.batches(dataset, 0, measured=True)
        self.assertEqual([p["path"] for p in message["pieces"] if p["path"].startswith("augment")],
                         ["augment"], "its own work, not its callbacks")


if __name__ == "__main__":
    unittest.main()
