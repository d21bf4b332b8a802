"""The probe's version check reads torch's version.py without importing torch."""

import importlib.machinery
import os
import tempfile
import unittest

from advisor_probe.bootstrap import _torch_version_on_disk


class TorchVersionOnDiskTest(unittest.TestCase):
    def version_of(self, text):
        with tempfile.TemporaryDirectory() as folder:
            os.mkdir(os.path.join(folder, "torch"))
            with open(os.path.join(folder, "torch", "version.py"), "w") as out:
                out.write(text)
            spec = importlib.machinery.ModuleSpec("torch", None, is_package=True)
            spec.submodule_search_locations = [os.path.join(folder, "torch")]
            return _torch_version_on_disk(spec)

    def test_plain_assignments_as_torch_1_writes_them(self):
        self.assertEqual(self.version_of("__version__ = '1.13.0a0'\ncuda = None\n"),
                         ("1.13.0a0", None))

    def test_annotated_assignments_as_torch_2_writes_them(self):
        text = ("from typing import Optional\n__version__ = '2.11.0+cu130'\n"
                "cuda: Optional[str] = '13.0'\n")
        self.assertEqual(self.version_of(text), ("2.11.0+cu130", "13.0"))


if __name__ == "__main__":
    unittest.main()
