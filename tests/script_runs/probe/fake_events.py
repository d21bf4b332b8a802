"""A stand-in for torch.cuda.Event in the probe's tests: it completes at the device time the test
gives it (device_clock.py, device_steps.py)."""


class FakeEvent:
    def __init__(self, device_ms):
        self.device_ms = device_ms
        self.synchronized = False

    def elapsed_time(self, later):
        return later.device_ms - self.device_ms

    def synchronize(self):
        self.synchronized = True
