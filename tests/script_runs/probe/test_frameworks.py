"""The training frameworks a script imported, which advisor names when it cannot follow the
script's training (an "ended" message without an optimizer step or a model)."""

import types
import unittest

from advisor_probe.session import imported_frameworks


class ImportedFrameworksTest(unittest.TestCase):
    def test_names_each_framework_imported_with_its_version(self):
        lightning = types.ModuleType("lightning")
        lightning.__version__ = "2.6.6"
        accelerate = types.ModuleType("accelerate")  # no version it says
        modules = {"lightning": lightning, "accelerate": accelerate, "numpy": types.ModuleType("np")}
        self.assertEqual(imported_frameworks(modules), ["lightning 2.6.6", "accelerate"])

    def test_a_plain_script_imported_none(self):
        self.assertEqual(imported_frameworks({"torch": types.ModuleType("torch")}), [])


if __name__ == "__main__":
    unittest.main()
