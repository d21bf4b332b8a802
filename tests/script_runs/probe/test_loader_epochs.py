"""What starting an epoch costs the training loop's DataLoader (loader_epochs.py): its restarts,
timed from the previous epoch's end to the new epoch's first batch, only in measured steps, and
only of the loader whose batches a backward pass followed."""

import time
import unittest

import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset
from torch.utils.data.dataloader import _BaseDataLoaderIter

from advisor_probe.loader_epochs import LoaderEpochs
from advisor_probe.loader_hook import LoaderHook, now

START_S = 0.2  # each worker's start: its worker_init_fn


class Numbers(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor([float(index)])


class Stream(IterableDataset):
    def __iter__(self):
        return iter(torch.arange(8.0).unsqueeze(1))


def slow_start(worker_id):
    time.sleep(START_S)


class LoaderEpochsTest(unittest.TestCase):
    def setUp(self):
        self.addCleanup(setattr, _BaseDataLoaderIter, "__next__", _BaseDataLoaderIter.__next__)
        self.measuring = True
        self.epochs = LoaderEpochs(lambda: self.measuring, IterableDataset)
        self.hook = LoaderHook([self.epochs])
        self.hook.install(_BaseDataLoaderIter)

    def epoch(self, loader, train=True):
        """One epoch as a training loop runs it: iter() as the session's DataLoader.__iter__
        times it, a backward pass after each batch."""
        started = now()
        iterator = iter(loader)
        self.hook.iterated(loader, iterator, now() - started)
        for _ in iterator:
            if train:
                self.epochs.trained()

    def test_a_restart_is_timed_to_its_first_batch_and_the_other_batches_are_steady(self):
        loader = DataLoader(Numbers(), batch_size=2, num_workers=2, worker_init_fn=slow_start)
        self.epoch(loader)
        first = self.epochs.take()
        self.assertEqual(first["starts"], [], "the first epoch starts its workers anyway")
        self.assertEqual(len(first["waits"]), 3, "its first batch waits for the workers too")
        self.epoch(loader)
        second = self.epochs.take()
        self.assertEqual({key: second[key] for key in ("workers", "persistent", "epoch_batches")},
                         {"workers": 2, "persistent": False, "epoch_batches": 4})
        self.assertEqual(len(second["starts"]), 1)
        self.assertGreaterEqual(second["starts"][0], START_S * 1e9, "the workers started again")
        self.assertEqual(len(second["waits"]), 3)
        self.assertLess(max(second["waits"]), second["starts"][0])

    def test_persistent_workers_restart_without_starting_again(self):
        loader = DataLoader(Numbers(), batch_size=2, num_workers=2, worker_init_fn=slow_start,
                            persistent_workers=True)
        self.epoch(loader)
        self.epochs.take()
        self.epoch(loader)
        second = self.epochs.take()
        self.assertTrue(second["persistent"])
        self.assertEqual(len(second["starts"]), 1)
        self.assertLess(second["starts"][0], START_S * 1e9, "the same workers went on")

    def test_only_measured_steps_count(self):
        loader = DataLoader(Numbers(), batch_size=2)
        self.epoch(loader)
        self.measuring = False
        self.epoch(loader)
        message = self.epochs.take()
        self.assertEqual((message["starts"], len(message["waits"])), ([], 3),
                         "the first epoch's batches after its first only")

    def test_the_training_loops_loader_is_the_one_a_backward_followed(self):
        training = DataLoader(Numbers(), batch_size=4)
        validation = DataLoader(Numbers(), batch_size=1)
        self.assertIsNone(self.epochs.take(), "no batch backpropagated yet")
        self.epoch(training)
        self.epoch(validation, train=False)
        self.epoch(training)
        message = self.epochs.take()
        self.assertEqual(message["epoch_batches"], 2, "the training loader's, not the other's 8")
        self.assertEqual((len(message["starts"]), len(message["waits"])), (1, 2))
        self.assertEqual(self.epochs.take()["waits"], [], "each command's records start afresh")

    def test_an_iterable_dataset_has_no_epoch_length(self):
        loader = DataLoader(Stream(), batch_size=2)
        self.epoch(loader)
        self.assertIsNone(self.epochs.take()["epoch_batches"])


if __name__ == "__main__":
    unittest.main()
