"""How the real-model check tells the best fix by hand (bench/real_models/judge.py)."""

import importlib.util
import os
import unittest

# Loaded by its path and under a name of its own: the zoo's judge (scripts/zoo/judge.py), which
# test_judge.py imports in the same process, is also a module named judge.
_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "real_models", "judge.py")
_SPEC = importlib.util.spec_from_file_location("real_models_judge", _PATH)
judge = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(judge)


def fix(speedup, quartiles=None):
    by_hand = {"ms": round(100 / speedup, 3), "speedup": speedup}
    if quartiles:
        by_hand["ms_quartiles"] = quartiles
    return by_hand


class TiedWithBestTest(unittest.TestCase):
    def test_a_fix_whose_chunks_overlap_the_best_ones_is_tied_with_it(self):
        # Llama's oracle on the H200: TF32 2.45x and bf16 2.41x, their chunks' spreads overlapping.
        fixes = [("tf32-matmul", fix(2.45, [40.5, 41.2])),
                 ("bf16-autocast", fix(2.41, [41.0, 42.0])),
                 ("dataloader-workers", fix(1.01, [98.0, 100.0]))]
        self.assertEqual(judge.tied_with_best(fixes), {"tf32-matmul", "bf16-autocast"})

    def test_a_fix_clear_of_the_best_ones_spread_is_not(self):
        fixes = [("tf32-matmul", fix(2.45, [40.5, 41.2])),
                 ("bf16-autocast", fix(2.41, [41.3, 42.0]))]
        self.assertEqual(judge.tied_with_best(fixes), {"tf32-matmul"})

    def test_an_oracle_without_spreads_has_one_best(self):
        fixes = [("tf32-matmul", fix(2.45)), ("bf16-autocast", fix(2.44))]
        self.assertEqual(judge.tied_with_best(fixes), {"tf32-matmul"})


if __name__ == "__main__":
    unittest.main()
