"""The probe's CUDA calls name the model's GPU, not the current device: a rank that put its model on
cuda:1 without torch.cuda.set_device has device 0 current, where a bare synchronize() would wait
for none of its own work while rank 0's waits for all of its own."""

import unittest
from unittest import mock

import torch

from advisor_probe.session import Session


class ModelDeviceTest(unittest.TestCase):
    def test_phase_and_step_synchronisations_wait_for_the_models_gpu(self):
        session = Session(None)
        session._cuda = True
        session._device = torch.device("cuda", 1)
        with mock.patch.object(torch.cuda, "synchronize") as synchronize:
            session._sync_if(False)
            session._sync_if(True)
        synchronize.assert_called_once_with(torch.device("cuda", 1))

    def test_a_cpu_model_synchronises_nothing(self):
        session = Session(None)
        with mock.patch.object(torch.cuda, "synchronize") as synchronize:
            session._sync_if(True)
        synchronize.assert_not_called()


if __name__ == "__main__":
    unittest.main()
