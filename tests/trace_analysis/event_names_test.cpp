#include "engine/trace_analysis/event_names.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

TEST(EventNames, TellAutogradNodesFromOpsAndLabels) {
  EXPECT_TRUE(IsBackwardNode("AddmmBackward0"));
  EXPECT_TRUE(IsBackwardNode("ScaledDotProductFlashAttentionBackward0"));
  EXPECT_TRUE(IsBackwardNode("MyFunctionBackward"));
  EXPECT_TRUE(IsBackwardNode("torch::autograd::AccumulateGrad"));
  EXPECT_FALSE(IsBackwardNode("aten::convolution_backward"));
  EXPECT_FALSE(IsBackwardNode("aten::_BackwardX"));
  EXPECT_FALSE(IsBackwardNode("encoder"));
  EXPECT_TRUE(IsEngineWrapper("autograd::engine::evaluate_function: MulBackward0"));
  EXPECT_TRUE(IsLegacyOpName("aten::mm"));
  EXPECT_TRUE(IsLegacyOpName("torch.distributed.ddp.reducer::copy_bucket_to_grad"));
  EXPECT_TRUE(IsLegacyOpName("detach"));
  EXPECT_FALSE(IsLegacyOpName("mixers"));
  EXPECT_FALSE(IsLegacyOpName("gloo:all_reduce"));
}

TEST(EventNames, ReadTheRangesTorchWritesItself) {
  EXPECT_TRUE(IsProfilerStep("ProfilerStep#12"));
  EXPECT_TRUE(IsOptimizerStep("Optimizer.step#AdamW.step"));
  EXPECT_FALSE(IsOptimizerStep("Optimizer.zero_grad#AdamW.zero_grad"));
  EXPECT_TRUE(IsOptimizerRange("Optimizer.zero_grad#AdamW.zero_grad"));
  EXPECT_TRUE(IsDataLoaderNext("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"));
  EXPECT_EQ(DataLoaderWorkers("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"), 0);
  EXPECT_EQ(DataLoaderWorkers("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"),
            std::nullopt);
  EXPECT_EQ(ModuleOfPythonEvent("nn.Module: Linear_12"), "Linear_12");
  EXPECT_EQ(ModuleOfPythonEvent("torch/nn/modules/module.py(1501): _call_impl"), std::nullopt);
  EXPECT_EQ(ModuleClass("Linear_12"), "Linear");
  EXPECT_EQ(ModuleClass("encoder"), "encoder");
  EXPECT_TRUE(IsParallelWrapperForward("DistributedDataParallel.forward"));
  EXPECT_TRUE(IsCommunication("nccl:all_reduce"));
  EXPECT_TRUE(IsCommunication("c10d::allreduce_"));
  EXPECT_TRUE(IsCommunication("torch.distributed.ddp.reducer::copy_bucket_to_grad"))
      << "it waits for the bucket's all-reduce";
  EXPECT_FALSE(IsCommunication("aten::copy_"));
}

TEST(EventNames, ReadGpuRecordNames) {
  EXPECT_EQ(MemcpyKindOf("Memcpy HtoD (Pageable -> Device)"), MemcpyKind::kHostToDevice);
  EXPECT_TRUE(IsPageableCopy("Memcpy HtoD (Pageable -> Device)"));
  EXPECT_FALSE(IsPageableCopy("Memcpy HtoD (Pinned -> Device)"));
  EXPECT_EQ(MemcpyKindOf("Memcpy DtoH (Device -> Pinned)"), MemcpyKind::kDeviceToHost);
  EXPECT_EQ(SyncKindOf("Stream Sync"), SyncKind::kStream);
  EXPECT_EQ(SyncKindOf("Stream Wait Event"), SyncKind::kStreamWaitEvent);
  EXPECT_EQ(SyncKindOf("Context Sync"), SyncKind::kContext);
  EXPECT_TRUE(IsNcclKernel(
      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"));
  EXPECT_TRUE(IsNcclKernel(
      "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
  EXPECT_FALSE(IsNcclKernel("void gemm_kernel<float>()"));
  EXPECT_TRUE(IsNcclKernel("void ncclKernel_AllGather_RING_LL(ncclDevComm*)")) << "after a space";
  EXPECT_TRUE(IsNcclKernel("void at::nccl::reduce_kernel()")) << "after ::";
  EXPECT_FALSE(IsNcclKernel("void my_ncclish_kernel(int)")) << "inside a word";
  EXPECT_FALSE(IsNcclKernel("void x:nccl_kernel(int)")) << "after one colon";
  EXPECT_TRUE(IsNcclKernel("void x:nccl_and_y::nccl_kernel(int)")) << "the second occurrence";
}

}  // namespace
}  // namespace advisor
