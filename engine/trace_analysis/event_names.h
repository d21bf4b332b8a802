// What torch.profiler's event names mean to advisor. Traces from LibTorch without Kineto (the
// legacy exporter) carry no categories, so names alone must tell an autograd node from an ATen op
// and a record_function range from both.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/timeline/timeline.h"

namespace advisor {

// "ProfilerStep#12": prof.step() brackets each training step with one.
bool IsProfilerStep(std::string_view name);
// "Optimizer.step#SGD.step", "Optimizer.zero_grad#AdamW.zero_grad": torch.optim's own ranges.
bool IsOptimizerStep(std::string_view name);
bool IsOptimizerRange(std::string_view name);
// advisor's own instruments and measurement, never the model's work: its marker ops and their
// autograd nodes ("advisor::mark"), its probe's calls, and the range its script probe waits for
// the device in at a measured step's end ("advisor::synchronize", inside the user's
// Optimizer.step#). The op probe leaves the same names out (probes/ops/op_probe.cpp).
bool IsAdvisorOwn(std::string_view name);
// "window 3: the children of trunk" -> "the children of trunk": the span advisor's trace.json
// draws over each profiled window on its run track (engine/report/chrome_trace.cpp); nullopt for
// any other name.
std::optional<std::string> AdvisorWindowLabel(std::string_view name);
// "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__": the loop waiting for a batch.
bool IsDataLoaderNext(std::string_view name);
// The workers of the DataLoader a range names: 0 for the single-process iterator; nullopt when
// the name does not say (the multiprocessing iterator: some workers).
std::optional<int> DataLoaderWorkers(std::string_view name);
// The autograd engine's wrapper around each node it runs; advisor leaves it out, as its op
// probe does, so that the node itself is the top-level op.
bool IsEngineWrapper(std::string_view name);
// An autograd node: "AddmmBackward0", "torch::autograd::AccumulateGrad", "CopySlices".
bool IsBackwardNode(std::string_view name);
// A collective or its host-side range: "nccl:all_reduce", "gloo:all_reduce", "c10d::allreduce_",
// "record_param_comms", and DDP's reducer ranges ("torch.distributed.ddp.reducer::
// copy_bucket_to_grad"), which wait for the bucket's all-reduce: a bisection on two H100s took
// that wait in the first layer's backward for the step's hottest op.
bool IsCommunication(std::string_view name);
// The forward of a data-parallel wrapper ("DistributedDataParallel.forward"): the root module,
// which module paths leave out as a bisection does.
bool IsParallelWrapperForward(std::string_view name);
// A name an ATen, TorchScript or c10d operator has ("aten::mm", "prim::If", "c10d::...").
bool IsOperatorName(std::string_view name);
// In a trace without categories: a name that is an op's rather than a record_function label's,
// an operator name or any C++ scope ("torch.distributed.ddp.reducer::copy_bucket_to_grad"), or
// the bare names the autograd engine records ("detach").
bool IsLegacyOpName(std::string_view name);
// "nn.Module: Linear_0" (with_stack) -> "Linear_0"; nullopt for other Python frames.
std::optional<std::string> ModuleOfPythonEvent(std::string_view name);
// "Linear_0" -> "Linear": the class of a module instance named by the Python tracer.
std::string ModuleClass(std::string_view component);

// GPU record names as Kineto writes them.
MemcpyKind MemcpyKindOf(std::string_view name);  // "Memcpy HtoD (Pageable -> Device)"
bool IsPageableCopy(std::string_view name);
SyncKind SyncKindOf(std::string_view name);      // "Stream Sync", "Event Sync", ...
// A collective's kernel: "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "ncclKernel_...".
bool IsNcclKernel(std::string_view name);

}  // namespace advisor
