// Writes the sample windows' trace.json (tests/report/sample_window.h) as advisor's report
// folder has it, for the readers of torch.profiler traces to load: DIR/gpu/trace.json (an H200
// run's shape) and DIR/cpu/trace.json, one trace a folder as HTA's TraceAnalysis takes them.
//
//   write_sample_traces DIR
#include <filesystem>
#include <fstream>
#include <iostream>

#include "engine/report/chrome_trace.h"
#include "tests/report/sample_window.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_sample_traces DIR\n";
    return 2;
  }
  for (const bool gpu : {true, false}) {
    advisor::RunReport report;
    report.run.device = gpu ? "cuda" : "cpu";
    report.run.device_name = gpu ? "NVIDIA H200" : "";
    // A finding and the hot spot, which the trace carries as advisor's instant events.
    advisor::Finding finding;
    finding.rule = "fp32-matmul";
    finding.path = "encoder.attn";
    finding.op = "aten::addmm";
    finding.message = "the GEMMs run in float32";
    report.findings = {finding};
    report.hotspot = advisor::Hotspot{};
    report.hotspot->path = "encoder.attn";
    report.hotspot->op = "aten::addmm";
    const std::filesystem::path folder = std::filesystem::path(argv[1]) / (gpu ? "gpu" : "cpu");
    std::filesystem::create_directories(folder);
    std::ofstream out(folder / "trace.json");
    advisor::WriteChromeTrace({advisor::testing::SampleWindow(gpu)}, report, out);
    if (!out.flush()) {
      std::cerr << "write_sample_traces: cannot write " << (folder / "trace.json") << "\n";
      return 1;
    }
  }
  return 0;
}
