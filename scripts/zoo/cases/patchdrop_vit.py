"""timm's ViT-B/16 with PatchDropout, deterministic algorithms on: the GPU check's case.

PatchDropout keeps half of the patch tokens with ``x.gather(1, keep.unsqueeze(-1).expand(...))``;
under deterministic algorithms its backward (GatherBackward0) takes CUDA's sort-based path. The
model and workload are scripts/export_vit.py's (batch 128, fp32, SGD, deterministic);
docs/gpu-check.md records advisor's answer on an H200 and an H100. GPU only: it needs timm, which
the CPU machines lack, and is far too large for a CPU step.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import export_vit  # noqa: E402  (scripts/ is on the path only from here on)

from zoo_case import classes, floats, workload  # noqa: E402

BATCH = 128
CLASSES = 1000


def build(size):
    if size != "cuda":
        raise ValueError("patchdrop_vit has a GPU size only")
    try:
        model, timm_version = export_vit.build_model(0.5, CLASSES, indexing=False)
    except SystemExit as e:  # export_vit's way of saying timm is missing
        raise RuntimeError(str(e)) from None
    spec = workload([floats(BATCH, 3, 224, 224)], classes(BATCH, CLASSES), deterministic=True,
                    optimizer={"name": "sgd", "lr": 0.001, "momentum": 0.9},
                    description=f"timm {timm_version} ViT-B/16, patch_drop_rate=0.5, batch "
                                f"{BATCH}, fp32, deterministic")
    return model, spec
