import torch, timm
torch.manual_seed(0); torch.set_num_threads(1)
model = timm.create_model("resnet18", num_classes=10)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(8, 3, 96, 96); y = torch.randint(0, 10, (8,))
sched = torch.profiler.schedule(wait=1, warmup=1, active=3)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                            on_trace_ready=lambda p: p.export_chrome_trace("/work/try/timm_trace.json"),
                            with_stack=False) as prof:
    for _ in range(6):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(); prof.step()
