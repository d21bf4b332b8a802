import faulthandler, sys
faulthandler.enable()
import torch
lib = sys.argv[1]
x = torch.randn(1024, 1024, device="cuda")
def maps():
    return sorted({l.split()[-1] for l in open("/proc/self/maps") if "cupti" in l})
print("cupti before load:", maps(), flush=True)
torch.ops.load_library(lib)
print("cupti after load:", maps(), flush=True)
for gpu in (False, True):
    print("start gpu=%s" % gpu, flush=True)
    torch.ops.advisor.probe_start(gpu)
    for _ in range(5):
        y = x @ x
    torch.cuda.synchronize()
    s = torch.ops.advisor.probe_finish()
    print("finish", len(s), s[-300:], flush=True)
print("cupti at end:", maps(), flush=True)
