"""By-hand share of the planted cost, in one process: the script runs as written; at each
optimizer step's end the planted class's forward is swapped between the script's own and the
vectorised one (fixes.json), so planted and fixed steps alternate and share the machine's load.
Steps are timed optimizer step end to optimizer step end with time.perf_counter.
usage: bytime2.py SCRIPT CLASS [--steps N]  (N steps of each kind after 10 warm-up steps)"""
import json, os, statistics as st, sys, time
import torch

script, cls_name = sys.argv[1], sys.argv[2]
n = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 60
warmup = 10
src = open(script).read()
fast_src = src
for old, new in json.load(open(os.path.join(os.path.dirname(os.path.abspath(script)), "fixes.json")))[os.path.basename(script)]:
    assert fast_src.count(old) == 1
    fast_src = fast_src.replace(old, new)
defs_end = fast_src.find("\nmodel = SensorAE()") if "\nmodel = SensorAE()" in fast_src else fast_src.find("\nif __name__")
g_fast = {"__name__": "fastdefs"}
exec(compile(fast_src[:defs_end], script + ":fixed", "exec"), g_fast)
fast_forward = g_fast[cls_name].forward

g = {"__name__": "__main__", "__file__": script}
state = {"cls": None, "slow_forward": None}
stamps, kinds = [], []

class Done(Exception):
    pass

def wrap(opt_cls):
    orig = opt_cls.step
    def step(self, *a, **k):
        r = orig(self, *a, **k)
        stamps.append(time.perf_counter())
        cls = g[cls_name]
        if state["slow_forward"] is None:
            state["slow_forward"] = cls.forward
        # the step that starts now runs planted (even index) or fixed (odd)
        planted = len(stamps) % 2 == 0
        cls.forward = state["slow_forward"] if planted else fast_forward
        kinds.append(planted)
        if len(stamps) > warmup + 2 * n:
            raise Done()
        return r
    opt_cls.step = step
for c in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
    wrap(c)

sys.argv = [script]
try:
    exec(compile(src, script, "exec"), g)
except Done:
    pass
slow, fast, pairs = [], [], []
for i in range(warmup, len(stamps) - 1):
    d = (stamps[i + 1] - stamps[i]) * 1e3
    (slow if kinds[i] else fast).append(d)
for a, b in zip(slow, fast):
    pairs.append(a - b)
ms, mf = st.median(slow), st.median(fast)
print(json.dumps({"script": os.path.basename(script), "load": os.getloadavg()[0], "planted_ms": round(ms, 1),
                  "fixed_ms": round(mf, 1), "share_medians": round((ms - mf) / ms, 3),
                  "median_pair_diff_ms": round(st.median(pairs), 1), "n": [len(slow), len(fast)]}))
