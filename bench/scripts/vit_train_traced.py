#!/usr/bin/env python3
"""vit_train.py with its input pipeline timed (loader_trace.py) where ADVISOR_LOADER_TRACE names a
folder; vit_train.py as it is without it.

    ADVISOR_LOADER_TRACE=DIR python3 bench/scripts/vit_train_traced.py [vit_train.py's options]
"""

import os

import loader_trace
import vit_train

if __name__ == "__main__":
    if os.environ.get("ADVISOR_LOADER_TRACE"):
        loader_trace.install(os.environ["ADVISOR_LOADER_TRACE"], vit_train.RandomImages)
    vit_train.main()
