"""Bench mode's steps timed by CUDA events at their ends, without waiting for the device at each
(device_steps.py), with stand-in events whose device times the test sets."""

import json
import os
import tempfile
import unittest

import torch

from advisor_probe.bench import Bench
from advisor_probe.device_steps import DeviceStepTimes, ms
from fake_events import FakeEvent


class Recorder:
    """Records each event at the device time set last."""

    def __init__(self):
        self.device_ms = 0.0
        self.events = []

    def __call__(self):
        self.events.append(FakeEvent(self.device_ms))
        return self.events[-1]


class DeviceStepTimesTest(unittest.TestCase):
    def test_a_step_lasts_from_the_device_end_before_it_to_its_own(self):
        record = Recorder()
        times = DeviceStepTimes(record)
        record.device_ms = 10.0
        times.step_ended(1_000)
        record.device_ms = 178.0
        times.step_ended(2_000)  # the host ran ahead: its clock moved 1 us
        interval = times.interval(1_000, 2_000)
        self.assertFalse(record.events[1].synchronized, "nothing waited for while the steps run")
        self.assertEqual(ms(interval), 168.0)
        self.assertTrue(record.events[1].synchronized, "the read waited for the step's end")

    def test_a_step_whose_start_has_no_event_has_no_device_time(self):
        times = DeviceStepTimes(Recorder())
        times.step_ended(2_000)
        self.assertIsNone(times.interval(1_000, 2_000))

    def test_steps_in_a_row_each_read_their_own_interval(self):
        record = Recorder()
        times = DeviceStepTimes(record)
        intervals = []
        for step, device_ms in enumerate([0.0, 40.0, 95.0, 130.0]):
            record.device_ms = device_ms
            times.step_ended(step)
            if step:
                intervals.append(times.interval(step - 1, step))
        self.assertEqual([ms(i) for i in intervals], [40.0, 55.0, 35.0])

    def test_the_hosts_lead_is_its_wait_for_the_last_steps_end(self):
        clock = [5.0]  # seconds

        class LateEvent(FakeEvent):
            def synchronize(self):
                super().synchronize()
                clock[0] += 0.040  # the device finishes the step 40 ms later

        times = DeviceStepTimes(lambda: LateEvent(0.0), clock=lambda: clock[0])
        self.assertIsNone(times.host_lead_ms(), "no step measured yet")
        times.step_ended(1_000)
        times.step_ended(2_000)
        self.assertAlmostEqual(times.host_lead_ms(), 40.0)
        self.assertTrue(times._ends[2_000].synchronized, "the last step's end, not an earlier one")
        self.assertFalse(times._ends[1_000].synchronized)

    def test_a_host_timed_step_reads_as_it_is(self):
        self.assertEqual(ms(12.5), 12.5)


class BenchOnDeviceTest(unittest.TestCase):
    def test_the_written_steps_are_the_devices_not_the_hosts(self):
        with tempfile.TemporaryDirectory() as folder:
            result = os.path.join(folder, "result.json")
            bench = Bench({"result": result, "warmup": 1, "steps": 2}, lambda: None)
            record = Recorder()
            bench._record_event = record  # the CUDA event's stand-in, on this CPU
            bench.model_found([torch.nn.Linear(2, 2)], True, lambda: 1)
            self.assertTrue(bench.times_on_device)
            # Host ends 1 ms apart (the host ran ahead), device ends 168, 160 and 171 ms apart.
            device_ends = [0.0, 168.0, 328.0, 499.0]
            done, index = False, 0
            while not done:
                end_ns = (index + 1) * 1_000_000
                if index >= bench.first_measured - 1:  # as the session stamps measured steps
                    record.device_ms = device_ends[index]
                    bench.step_ends(end_ns)
                done = bench.step_closed([index, end_ns - 1_000_000, end_ns, []])
                index += 1
            with open(result) as written:
                self.assertEqual(json.load(written)["step_ms"], [160.0, 171.0])

    def test_on_the_cpu_the_host_times_the_steps(self):
        bench = Bench({"result": "/nonexistent", "warmup": 1, "steps": 2}, lambda: None)
        bench.model_found([torch.nn.Linear(2, 2)], False, lambda: 1)
        self.assertFalse(bench.times_on_device)


if __name__ == "__main__":
    unittest.main()
