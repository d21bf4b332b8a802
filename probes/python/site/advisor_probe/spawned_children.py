"""The probe's objects reach the script's spawned children, whatever the script does to sys.path.

A child that multiprocessing spawns (the spawn and forkserver start methods: a DataLoader's
`multiprocessing_context="spawn"`, `torch.multiprocessing.spawn`) starts a fresh interpreter,
takes its parent's sys.path as it is then (`get_preparation_data()["sys_path"]`), runs the
script's top level again, and only then unpickles what its parent sent it, the probe's
objects among them (the DataLoader's worker_init_fn, stage_worker.WorkerInit). A script that keeps
PYTHONPATH's entries out of sys.path drops the probe's folder in the parent and again in the child:
"ModuleNotFoundError: No module named 'advisor_probe'" in its workers, a traceback of the script's.

Two ways in, for the two ways a script loses the folder: the child's sitecustomize (still on its
inherited PYTHONPATH) imports this package before anything replaces sys.path, and a package
imported stays importable (sitecustomize.py); where the script also took PYTHONPATH out of the
environment its children inherit, the parent adds the folder, last, to the sys.path it hands
them (keep_folder_for_spawned_children).
"""

import multiprocessing.spawn
import os

FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the one holding the package


def keep_folder_for_spawned_children():
    prepare = multiprocessing.spawn.get_preparation_data

    def get_preparation_data(name):
        data = prepare(name)
        path = data.get("sys_path")
        if path is not None and FOLDER not in (os.path.abspath(entry or ".") for entry in path):
            data["sys_path"] = list(path) + [FOLDER]
        return data

    multiprocessing.spawn.get_preparation_data = get_preparation_data
