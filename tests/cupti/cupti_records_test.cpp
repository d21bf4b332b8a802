// Hand-built CUPTI records through the converter: what the probe does with each buffer on a GPU.
#include "probes/cupti/cupti_records.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

namespace advisor {
namespace {

// CUPTI time 1'000'000'000 is steady time 5'000 at the start of the window; the offset then
// drifts by +1'000 ns over one second.
constexpr std::uint64_t kWindowStart = 1'000'000'000;
const CuptiClockMap kClock({kWindowStart, 5'000, 0},
                           {kWindowStart + 1'000'000'000, 1'000'006'000, 0});

template <typename Record>
Record Blank(CUpti_ActivityKind kind) {
  Record record;
  std::memset(&record, 0, sizeof(record));
  record.kind = kind;
  return record;
}

CUpti_ActivityKernel10 Kernel(std::uint32_t correlation, std::uint64_t start, std::uint64_t end,
                              const char* name = "_Z6vecAddPfS_S_i") {
  auto record = Blank<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  record.correlationId = correlation;
  record.start = start;
  record.end = end;
  record.name = name;
  record.deviceId = 0;
  record.streamId = 7;
  record.gridX = 128;
  record.gridY = 2;
  record.gridZ = 1;
  record.blockX = 256;
  record.blockY = 1;
  record.blockZ = 1;
  record.registersPerThread = 32;
  record.staticSharedMemory = 1024;
  record.dynamicSharedMemory = 4096;
  return record;
}

CUpti_ActivityExternalCorrelation External(
    std::uint32_t correlation, std::uint64_t external_id,
    CUpti_ExternalCorrelationKind kind = kOpCorrelationKind) {
  auto record = Blank<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  record.externalKind = kind;
  record.externalId = external_id;
  record.correlationId = correlation;
  return record;
}

CUpti_ActivityMemcpy6 Memcpy(std::uint32_t correlation, CUpti_ActivityMemcpyKind kind,
                             CUpti_ActivityMemoryKind src, CUpti_ActivityMemoryKind dst) {
  auto record = Blank<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  record.copyKind = static_cast<std::uint8_t>(kind);
  record.srcKind = static_cast<std::uint8_t>(src);
  record.dstKind = static_cast<std::uint8_t>(dst);
  record.bytes = 4096;
  record.start = kWindowStart + 100;
  record.end = kWindowStart + 300;
  record.streamId = 7;
  record.correlationId = correlation;
  return record;
}

CUpti_ActivityAPI Api(CUpti_ActivityKind kind, std::uint32_t cbid, std::uint32_t correlation) {
  auto record = Blank<CUpti_ActivityAPI>(kind);
  record.cbid = cbid;
  record.start = kWindowStart + 10;
  record.end = kWindowStart + 20;
  record.threadId = 4242;
  record.correlationId = correlation;
  return record;
}

template <typename Record>
const CUpti_Activity& AsActivity(const Record& record) {
  return reinterpret_cast<const CUpti_Activity&>(record);
}

// CUPTI's names for the calls these tests use.
const char* FakeApiName(bool driver, std::uint32_t cbid) {
  static const std::map<std::pair<bool, std::uint32_t>, const char*> names = {
      {{false, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000}, "cudaLaunchKernel_v7000"},
      {{false, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000}, "cudaMemcpyAsync_ptsz_v7000"},
      {{false, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020},
       "cudaStreamSynchronize_v3020"},
      {{true, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz}, "cuMemcpyHtoDAsync_v2_ptsz"},
  };
  auto it = names.find({driver, cbid});
  return it == names.end() ? nullptr : it->second;
}

class CuptiRecordConverterTest : public ::testing::Test {
 protected:
  CuptiRecordConverter converter_{kClock, FakeApiName};
  Timeline timeline_;
};

TEST_F(CuptiRecordConverterTest, KernelJoinsItsOpThroughTheExternalCorrelationRecord) {
  converter_.Consume(AsActivity(External(7, 42)));
  converter_.Consume(AsActivity(Kernel(7, kWindowStart + 1'000, kWindowStart + 3'000)));
  converter_.AppendTo(timeline_);

  ASSERT_EQ(timeline_.kernels.size(), 1u);
  const KernelEvent& kernel = timeline_.kernels[0];
  EXPECT_EQ(kernel.external_id, 42u);
  EXPECT_EQ(kernel.correlation_id, 7u);
  EXPECT_EQ(kernel.name, "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(kernel.stream, 7u);
  EXPECT_EQ(kernel.grid[0], 128);
  EXPECT_EQ(kernel.grid[1], 2);
  EXPECT_EQ(kernel.block[0], 256);
  EXPECT_EQ(kernel.registers_per_thread, 32);
  EXPECT_EQ(kernel.static_shared_bytes, 1024);
  EXPECT_EQ(kernel.dynamic_shared_bytes, 4096);
  EXPECT_EQ(converter_.counts().gpu_work_with_op, 1u);
}

TEST_F(CuptiRecordConverterTest, MapsCuptiTimesOntoTheSteadyClockWithDrift) {
  converter_.Consume(AsActivity(Kernel(1, kWindowStart + 1'000, kWindowStart + 3'000)));
  converter_.Consume(AsActivity(Kernel(2, kWindowStart + 500'000'000, kWindowStart + 500'002'000)));
  converter_.AppendTo(timeline_);

  ASSERT_EQ(timeline_.kernels.size(), 2u);
  EXPECT_EQ(timeline_.kernels[0].start_ns, 6'000);  // offset still ~5'000 at the start
  EXPECT_EQ(timeline_.kernels[0].end_ns, 8'000);
  // Halfway through the window half the drift (500 ns) has accrued.
  EXPECT_EQ(timeline_.kernels[1].start_ns, 500'005'500);
  EXPECT_EQ(timeline_.kernels[1].end_ns - timeline_.kernels[1].start_ns, 2'000);
}

TEST_F(CuptiRecordConverterTest, ExternalIdArrivingAfterTheWorkStillJoins) {
  converter_.Consume(AsActivity(Kernel(9, kWindowStart + 1'000, kWindowStart + 2'000)));
  converter_.Consume(AsActivity(External(9, 77)));
  converter_.AppendTo(timeline_);
  ASSERT_EQ(timeline_.kernels.size(), 1u);
  EXPECT_EQ(timeline_.kernels[0].external_id, 77u);
}

TEST_F(CuptiRecordConverterTest, WorkWithoutAnExternalIdHasNoOp) {
  converter_.Consume(AsActivity(External(1, 5)));
  converter_.Consume(AsActivity(Kernel(2, kWindowStart + 1'000, kWindowStart + 2'000)));
  converter_.AppendTo(timeline_);
  ASSERT_EQ(timeline_.kernels.size(), 1u);
  EXPECT_EQ(timeline_.kernels[0].external_id, 0u);
  EXPECT_EQ(converter_.counts().gpu_work_with_op, 0u);
}

TEST_F(CuptiRecordConverterTest, IgnoresAndCountsOtherToolsExternalIds) {
  converter_.Consume(AsActivity(External(3, 99, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1)));
  converter_.Consume(AsActivity(Kernel(3, kWindowStart + 1'000, kWindowStart + 2'000)));
  converter_.AppendTo(timeline_);
  EXPECT_EQ(timeline_.kernels[0].external_id, 0u);
  EXPECT_EQ(converter_.counts().ignored, 1u);
  EXPECT_EQ(converter_.counts().external_correlations, 0u);
}

TEST_F(CuptiRecordConverterTest, ConvertsMemcpyKindsAndPageableHostMemory) {
  converter_.Consume(
      AsActivity(Memcpy(1, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)));
  converter_.Consume(
      AsActivity(Memcpy(2, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)));
  converter_.Consume(
      AsActivity(Memcpy(3, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE)));
  converter_.Consume(
      AsActivity(Memcpy(4, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)));
  converter_.Consume(
      AsActivity(Memcpy(5, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)));
  converter_.Consume(
      AsActivity(Memcpy(6, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                        CUPTI_ACTIVITY_MEMORY_KIND_ARRAY)));
  converter_.AppendTo(timeline_);

  ASSERT_EQ(timeline_.memcpys.size(), 6u);
  EXPECT_EQ(timeline_.memcpys[0].kind, MemcpyKind::kHostToDevice);
  EXPECT_TRUE(timeline_.memcpys[0].pageable_host);
  EXPECT_EQ(timeline_.memcpys[1].kind, MemcpyKind::kHostToDevice);
  EXPECT_FALSE(timeline_.memcpys[1].pageable_host);
  EXPECT_EQ(timeline_.memcpys[2].kind, MemcpyKind::kDeviceToHost);
  EXPECT_TRUE(timeline_.memcpys[2].pageable_host);
  EXPECT_EQ(timeline_.memcpys[3].kind, MemcpyKind::kDeviceToDevice);
  EXPECT_FALSE(timeline_.memcpys[3].pageable_host);
  EXPECT_EQ(timeline_.memcpys[4].kind, MemcpyKind::kOther);
  EXPECT_EQ(timeline_.memcpys[5].kind, MemcpyKind::kHostToDevice);
  EXPECT_EQ(timeline_.memcpys[0].bytes, 4096u);
  EXPECT_EQ(timeline_.memcpys[0].end_ns - timeline_.memcpys[0].start_ns, 200);
}

TEST_F(CuptiRecordConverterTest, MemcpyJoinsThroughItsRuntimeCorrelationIdToo) {
  auto copy = Memcpy(50, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                     CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
  copy.runtimeCorrelationId = 49;
  converter_.Consume(AsActivity(copy));
  converter_.Consume(AsActivity(External(49, 314)));
  converter_.AppendTo(timeline_);
  ASSERT_EQ(timeline_.memcpys.size(), 1u);
  EXPECT_EQ(timeline_.memcpys[0].external_id, 314u);
  EXPECT_EQ(timeline_.memcpys[0].correlation_id, 50u);
}

TEST_F(CuptiRecordConverterTest, ConvertsMemsetsAndSynchronisations) {
  auto memset = Blank<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  memset.bytes = 512;
  memset.start = kWindowStart + 10;
  memset.end = kWindowStart + 40;
  memset.streamId = 3;
  memset.correlationId = 21;
  auto stream_sync = Blank<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  stream_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  stream_sync.start = kWindowStart + 50;
  stream_sync.end = kWindowStart + 950;
  stream_sync.streamId = 3;
  stream_sync.correlationId = 22;
  auto context_sync = stream_sync;
  context_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  context_sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  context_sync.correlationId = 23;

  converter_.Consume(AsActivity(memset));
  converter_.Consume(AsActivity(stream_sync));
  converter_.Consume(AsActivity(context_sync));
  converter_.Consume(AsActivity(External(21, 1)));
  converter_.Consume(AsActivity(External(22, 2)));
  converter_.AppendTo(timeline_);

  ASSERT_EQ(timeline_.memsets.size(), 1u);
  EXPECT_EQ(timeline_.memsets[0].bytes, 512u);
  EXPECT_EQ(timeline_.memsets[0].stream, 3u);
  EXPECT_EQ(timeline_.memsets[0].external_id, 1u);
  ASSERT_EQ(timeline_.syncs.size(), 2u);
  EXPECT_EQ(timeline_.syncs[0].kind, SyncKind::kStream);
  EXPECT_EQ(timeline_.syncs[0].stream, 3u);
  EXPECT_EQ(timeline_.syncs[0].external_id, 2u);
  EXPECT_EQ(timeline_.syncs[0].end_ns - timeline_.syncs[0].start_ns, 900);
  EXPECT_EQ(timeline_.syncs[1].kind, SyncKind::kContext);
  EXPECT_EQ(timeline_.syncs[1].stream, 0u);
  EXPECT_EQ(timeline_.syncs[1].external_id, 0u);
}

TEST_F(CuptiRecordConverterTest, NamesApiCallsWithoutVersionOrStreamSuffixes) {
  converter_.Consume(AsActivity(Api(CUPTI_ACTIVITY_KIND_RUNTIME,
                                    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, 30)));
  converter_.Consume(AsActivity(Api(CUPTI_ACTIVITY_KIND_DRIVER,
                                    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, 31)));
  converter_.Consume(AsActivity(Api(CUPTI_ACTIVITY_KIND_RUNTIME, 65000, 32)));
  converter_.Consume(AsActivity(External(30, 8)));
  converter_.Consume(AsActivity(External(31, 8)));
  converter_.AppendTo(timeline_);

  ASSERT_EQ(timeline_.api_calls.size(), 3u);
  EXPECT_EQ(timeline_.api_calls[0].name, "cudaMemcpyAsync");
  EXPECT_FALSE(timeline_.api_calls[0].driver);
  EXPECT_EQ(timeline_.api_calls[0].thread, 4242u);
  EXPECT_EQ(timeline_.api_calls[0].external_id, 8u);
  EXPECT_EQ(timeline_.api_calls[1].name, "cuMemcpyHtoDAsync");
  EXPECT_TRUE(timeline_.api_calls[1].driver);
  EXPECT_EQ(timeline_.api_calls[1].external_id, 8u);
  EXPECT_EQ(timeline_.api_calls[2].name, "runtime call 65000");
}

TEST(BaseApiName, StripsVersionAndPerThreadStreamSuffixes) {
  EXPECT_EQ(BaseApiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(BaseApiName("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(BaseApiName("cudaMemcpy_ptds_v7000"), "cudaMemcpy");
  EXPECT_EQ(BaseApiName("cuMemcpyHtoDAsync_v2_ptsz"), "cuMemcpyHtoDAsync");
  EXPECT_EQ(BaseApiName("cuStreamSynchronize"), "cuStreamSynchronize");
  EXPECT_EQ(BaseApiName("cuMemFree_v2"), "cuMemFree");
  EXPECT_EQ(BaseApiName("cudaGraphLaunch_v10000"), "cudaGraphLaunch");
  EXPECT_EQ(BaseApiName("cuvid_v"), "cuvid_v") << "no digits: not a version suffix";
}

TEST_F(CuptiRecordConverterTest, UntimedRecordsAreCountedAsLost) {
  converter_.Consume(AsActivity(Kernel(1, 0, 0)));
  converter_.Consume(AsActivity(Kernel(2, kWindowStart + 500, kWindowStart + 100)));
  converter_.Consume(AsActivity(Kernel(3, kWindowStart + 100, kWindowStart + 500)));
  converter_.AppendTo(timeline_);
  EXPECT_EQ(timeline_.kernels.size(), 1u);
  EXPECT_EQ(converter_.counts().kernels, 1u);
  EXPECT_EQ(converter_.counts().without_timestamps, 2u);
  EXPECT_EQ(converter_.counts().lost_records(), 2u);
}

TEST_F(CuptiRecordConverterTest, IgnoresAndCountsKindsItDoesNotConvert) {
  auto marker = Blank<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  auto overhead = Blank<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  converter_.Consume(AsActivity(marker));
  converter_.Consume(AsActivity(overhead));
  converter_.AppendTo(timeline_);
  EXPECT_EQ(converter_.counts().ignored, 2u);
  EXPECT_TRUE(timeline_.kernels.empty());
  EXPECT_TRUE(timeline_.api_calls.empty());
}

TEST_F(CuptiRecordConverterTest, KernelNamesThatDoNotDemangleStayAsCuptiGaveThem) {
  converter_.Consume(
      AsActivity(Kernel(1, kWindowStart + 1, kWindowStart + 2, "triton_poi_fused_0")));
  converter_.Consume(AsActivity(Kernel(2, kWindowStart + 1, kWindowStart + 2, nullptr)));
  converter_.AppendTo(timeline_);
  EXPECT_EQ(timeline_.kernels[0].name, "triton_poi_fused_0");
  EXPECT_EQ(timeline_.kernels[1].name, "<unnamed kernel>");
}

TEST(DescribeCuptiWindows, ReportsEveryLossWithItsCause) {
  CuptiRecordCounts counts;
  counts.kernels = 10;
  counts.memcpys = 2;
  counts.gpu_work_with_op = 11;
  counts.dropped_by_cupti = 40;
  counts.refused_buffers = 3;
  counts.without_timestamps = 2;
  counts.unreadable_buffers = 1;
  counts.ignored = 5;
  const ProbeStatus status = DescribeCuptiWindows(counts, 64, 4 << 20, 1'500);
  EXPECT_EQ(status.probe, "cupti");
  EXPECT_TRUE(status.active);
  EXPECT_EQ(status.dropped_records, 42u);
  EXPECT_NE(status.detail.find("11 of 12 tied to an op"), std::string::npos) << status.detail;
  EXPECT_NE(status.detail.find("42 records dropped"), std::string::npos) << status.detail;
  EXPECT_NE(status.detail.find("40 dropped by CUPTI"), std::string::npos) << status.detail;
  EXPECT_NE(status.detail.find("3 buffer requests refused at the bound of 64 x 4 MiB"),
            std::string::npos) << status.detail;
  EXPECT_NE(status.detail.find("2 untimed"), std::string::npos) << status.detail;
  EXPECT_NE(status.detail.find("1 buffers cut short"), std::string::npos) << status.detail;
  EXPECT_NE(status.detail.find("5 records of other kinds ignored"), std::string::npos)
      << status.detail;
  EXPECT_NE(status.detail.find("drift 1500 ns"), std::string::npos) << status.detail;
}

TEST(DescribeCuptiWindows, NamesSmallBufferBoundsInKibibytes) {
  CuptiRecordCounts counts;
  counts.refused_buffers = 1;
  const ProbeStatus status = DescribeCuptiWindows(counts, 1, 64 << 10, 0);
  EXPECT_NE(status.detail.find("bound of 1 x 64 KiB"), std::string::npos) << status.detail;
}

TEST(DescribeCuptiWindows, ACleanWindowSaysNothingWasDropped) {
  CuptiRecordCounts counts;
  counts.kernels = 3;
  const ProbeStatus status = DescribeCuptiWindows(counts, 64, 4 << 20, 0);
  EXPECT_EQ(status.dropped_records, 0u);
  EXPECT_NE(status.detail.find("0 records dropped"), std::string::npos);
  EXPECT_EQ(status.detail.find("refused"), std::string::npos);
}

TEST(CuptiRecordCounts, AddsUpWindows) {
  CuptiRecordCounts first;
  first.kernels = 2;
  first.dropped_by_cupti = 1;
  CuptiRecordCounts second;
  second.kernels = 3;
  second.without_timestamps = 4;
  first += second;
  EXPECT_EQ(first.kernels, 5u);
  EXPECT_EQ(first.lost_records(), 5u);
}

}  // namespace
}  // namespace advisor
