"""The sys.path a spawned child of the script starts from keeps the probe's folder, however the
script rewrote its own (advisor_probe/spawned_children.py)."""

import multiprocessing.spawn
import os
import sys
import unittest

from advisor_probe import spawned_children


class KeepFolderForSpawnedChildrenTest(unittest.TestCase):
    def setUp(self):
        self.addCleanup(setattr, multiprocessing.spawn, "get_preparation_data",
                        multiprocessing.spawn.get_preparation_data)
        self.addCleanup(sys.path.__setitem__, slice(None), list(sys.path))
        spawned_children.keep_folder_for_spawned_children()

    def children_path(self):
        return multiprocessing.spawn.get_preparation_data("worker")["sys_path"]

    def test_the_folder_the_script_dropped_comes_last(self):
        sys.path[:] = [entry for entry in sys.path
                       if os.path.abspath(entry or ".") != spawned_children.FOLDER]
        path = self.children_path()
        self.assertEqual(path[:-1], sys.path)
        self.assertEqual(path[-1], spawned_children.FOLDER)
        self.assertTrue(os.path.isdir(os.path.join(path[-1], "advisor_probe")))

    def test_a_path_that_has_it_is_left_as_it_is(self):
        sys.path.insert(0, spawned_children.FOLDER)
        self.assertEqual(self.children_path(), sys.path)


if __name__ == "__main__":
    unittest.main()
