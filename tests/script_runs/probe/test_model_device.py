"""The probe's CUDA calls name the model's GPU, not the current device: a rank that put its model on
cuda:1 without torch.cuda.set_device has device 0 current, where a bare synchronize() would wait
for none of its own work while rank 0's waits for all of its own."""

import unittest
from unittest import mock

import torch

from advisor_probe.session import Session, _Command


class ModelDeviceTest(unittest.TestCase):
    def test_phase_and_step_synchronisations_wait_for_the_models_gpu(self):
        session = Session(None)
        session._cuda = True
        session._device = torch.device("cuda", 1)
        calls = mock.Mock()  # the native probe's ops and torch.cuda's wait, in the order called
        with mock.patch.object(torch.cuda, "synchronize", calls.synchronize), \
                mock.patch.object(torch.ops, "advisor", calls.advisor, create=True):
            session._sync_if(False)
            session._sync_if(True)
        calls.synchronize.assert_called_once_with(torch.device("cuda", 1))
        # Inside advisor's own range (own_sync.py): the wait is not the user's optimizer's.
        self.assertEqual(calls.mock_calls,
                         [mock.call.advisor.own_range_begin.default("advisor::synchronize"),
                          mock.call.synchronize(torch.device("cuda", 1)),
                          mock.call.advisor.own_range_end.default()])

    def test_a_cpu_model_synchronises_nothing(self):
        session = Session(None)
        with mock.patch.object(torch.cuda, "synchronize") as synchronize:
            session._sync_if(True)
        synchronize.assert_not_called()

    def test_a_window_sends_what_the_models_gpu_held_as_it_began(self):
        session = Session(None)
        session._cuda = True
        session._device = torch.device("cuda", 1)
        command = _Command({"op": "record", "steps": 2}, 0)
        with mock.patch.object(torch.cuda, "reset_peak_memory_stats"), \
                mock.patch.object(torch.cuda, "memory_allocated", return_value=40370176) as held, \
                mock.patch.object(torch.ops, "advisor", mock.Mock(), create=True):
            session._start_recording(command)
        held.assert_called_once_with(torch.device("cuda", 1))
        properties = mock.Mock(total_memory=2**30)
        with mock.patch.object(torch.cuda, "memory_stats", return_value={}), \
                mock.patch.object(torch.cuda, "max_memory_allocated", return_value=2**20), \
                mock.patch.object(torch.cuda, "max_memory_reserved", return_value=2**21), \
                mock.patch.object(torch.cuda, "get_device_properties", return_value=properties):
            memory = session._memory(command)
        self.assertEqual(memory["at_start"], {"device": 1, "allocated_bytes": 40370176})

    def test_a_cpu_window_sends_no_allocator_figures(self):
        self.assertIsNone(Session(None)._memory(_Command({"op": "record", "steps": 2}, 0)))


if __name__ == "__main__":
    unittest.main()
