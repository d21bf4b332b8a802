"""Bench mode's report of inductor's FX graph cache: what each round's run found in the cache the
autotest's runs share."""

import collections
import sys
import types
import unittest
from unittest import mock

from advisor_probe.bench import fx_graph_cache_lookups


def _dynamo_utils(inductor):
    counters = collections.defaultdict(collections.Counter)
    counters["inductor"].update(inductor)
    return types.SimpleNamespace(counters=counters)


class FxGraphCacheLookupsTest(unittest.TestCase):
    def test_torchs_counters_as_hits_misses_and_bypasses(self):
        utils = _dynamo_utils({"fxgraph_cache_hit": 3, "fxgraph_cache_bypass": 1,
                               "extern_calls": 2})
        with mock.patch.dict(sys.modules, {"torch._dynamo.utils": utils}):
            self.assertEqual(fx_graph_cache_lookups(), {"hits": 3, "misses": 0, "bypasses": 1})

    def test_none_where_nothing_was_compiled_with_inductor(self):
        with mock.patch.dict(sys.modules, {"torch._dynamo.utils": _dynamo_utils({})}):
            self.assertIsNone(fx_graph_cache_lookups(), "dynamo ran, inductor did not")
        with mock.patch.dict(sys.modules):
            sys.modules.pop("torch._dynamo.utils", None)
            self.assertIsNone(fx_graph_cache_lookups(), "the compiler was never imported")


if __name__ == "__main__":
    unittest.main()
