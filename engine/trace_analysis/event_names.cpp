#include "engine/trace_analysis/event_names.h"

namespace advisor {
namespace {

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool IsProfilerStep(std::string_view name) { return StartsWith(name, "ProfilerStep#"); }

bool IsOptimizerStep(std::string_view name) {
  return StartsWith(name, "Optimizer.step#");
}

bool IsOptimizerRange(std::string_view name) { return StartsWith(name, "Optimizer."); }

bool IsAdvisorOwn(std::string_view name) { return Contains(name, "advisor::"); }

std::optional<std::string> AdvisorWindowLabel(std::string_view name) {
  constexpr std::string_view kWindow = "window ";
  if (!StartsWith(name, kWindow)) return std::nullopt;
  std::size_t end = kWindow.size();
  while (end < name.size() && IsDigit(name[end])) ++end;
  if (end == kWindow.size() || name.substr(end, 2) != ": ") return std::nullopt;
  return std::string(name.substr(end + 2));
}

bool IsDataLoaderNext(std::string_view name) {
  return StartsWith(name, "enumerate(DataLoader)#");
}

std::optional<int> DataLoaderWorkers(std::string_view name) {
  if (Contains(name, "_SingleProcessDataLoaderIter")) return 0;
  return std::nullopt;
}

bool IsEngineWrapper(std::string_view name) {
  return StartsWith(name, "autograd::engine::evaluate_function: ");
}

bool IsBackwardNode(std::string_view name) {
  if (StartsWith(name, "torch::autograd::") || name == "CopySlices") return true;
  if (IsOperatorName(name)) return false;
  // "...Backward" and "...Backward0", "...Backward1": autograd's names for its nodes.
  std::size_t end = name.size();
  while (end > 0 && IsDigit(name[end - 1])) --end;
  return end >= 8 && name.substr(end - 8, 8) == "Backward";
}

bool IsCommunication(std::string_view name) {
  return StartsWith(name, "nccl:") || StartsWith(name, "gloo:") || StartsWith(name, "c10d::") ||
         StartsWith(name, "torch.distributed.ddp.reducer::") || name == "record_param_comms";
}

bool IsParallelWrapperForward(std::string_view name) {
  return name == "DistributedDataParallel.forward" || name == "FullyShardedDataParallel.forward";
}

bool IsOperatorName(std::string_view name) {
  const std::size_t colons = name.find("::");
  if (colons == std::string_view::npos || colons == 0) return false;
  for (char c : name.substr(0, colons)) {
    if (!(IsDigit(c) || (c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

bool IsLegacyOpName(std::string_view name) {
  return Contains(name, "::") || name == "detach";
}

std::optional<std::string> ModuleOfPythonEvent(std::string_view name) {
  constexpr std::string_view kPrefix = "nn.Module: ";
  if (!StartsWith(name, kPrefix) || name.size() == kPrefix.size()) return std::nullopt;
  return std::string(name.substr(kPrefix.size()));
}

std::string ModuleClass(std::string_view component) {
  std::size_t end = component.size();
  while (end > 0 && IsDigit(component[end - 1])) --end;
  if (end > 0 && end < component.size() && component[end - 1] == '_') {
    return std::string(component.substr(0, end - 1));
  }
  return std::string(component);
}

MemcpyKind MemcpyKindOf(std::string_view name) {
  if (Contains(name, "HtoD")) return MemcpyKind::kHostToDevice;
  if (Contains(name, "DtoH")) return MemcpyKind::kDeviceToHost;
  if (Contains(name, "DtoD")) return MemcpyKind::kDeviceToDevice;
  return MemcpyKind::kOther;
}

bool IsPageableCopy(std::string_view name) { return Contains(name, "Pageable"); }

SyncKind SyncKindOf(std::string_view name) {
  if (Contains(name, "Wait Event")) return SyncKind::kStreamWaitEvent;
  if (Contains(name, "Stream Sync")) return SyncKind::kStream;
  if (Contains(name, "Event Sync")) return SyncKind::kEvent;
  if (Contains(name, "Context Sync")) return SyncKind::kContext;
  if (Contains(name, "Device Sync")) return SyncKind::kDevice;
  return SyncKind::kOther;
}

bool IsNcclKernel(std::string_view name) {
  // "nccl" at the start, or after " " or "::": one search for it, where three took a fifth of a
  // GPU trace's window (its every kernel's name, often hundreds of characters).
  for (std::size_t at = name.find("nccl"); at != std::string_view::npos;
       at = name.find("nccl", at + 1)) {
    if (at == 0 || name[at - 1] == ' ' || (at >= 2 && name.substr(at - 2, 2) == "::")) return true;
  }
  return false;
}

}  // namespace advisor
