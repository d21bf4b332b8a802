#include "tests/diff/diff_reports.h"

namespace advisor::testing {
namespace {

ModuleStats Module(const std::string& path, double forward_ms, double backward_ms) {
  ModuleStats module;
  module.path = path;
  module.forward_ms = forward_ms;
  module.backward_ms = backward_ms;
  module.measured = true;
  return module;
}

ModuleStats Unmeasured(const std::string& path) {
  ModuleStats module;
  module.path = path;
  return module;
}

Finding FindingOf(const std::string& rule, const std::string& path, const std::string& op,
                  Severity severity) {
  Finding finding;
  finding.rule = rule;
  finding.path = path;
  finding.op = op;
  finding.severity = severity;
  finding.message = rule + " fired";
  return finding;
}

OpTime Op(const std::string& name, const std::string& phase, double self_ms) {
  OpTime op;
  op.name = name;
  op.phase = phase;
  op.calls = 1;
  op.ms = self_ms;
  op.self_ms = self_ms;
  return op;
}

Hotspot BackwardHotspot(const std::string& path, const std::string& op) {
  Hotspot hotspot;
  hotspot.path = path;
  hotspot.phase = "backward";
  hotspot.op = op;
  return hotspot;
}

// Each side's step: its profiled step as long as the timed one, optimizer 8 ms, rest 2 ms.
RunReport Common(double step_ms, double forward_ms, double backward_ms) {
  RunReport report;
  report.run.mode = Door::kScript;
  report.run.model = "train.py";
  report.run.device = "cpu";
  report.step.samples_ms = {step_ms - 1, step_ms, step_ms + 1, step_ms - 0.5, step_ms + 0.5};
  report.step.median_ms = step_ms;
  report.step.mean_ms = step_ms;
  report.step.min_ms = step_ms - 1;
  report.step.max_ms = step_ms + 1;
  report.step.profiled_ms = step_ms;
  report.step.forward_ms = forward_ms;
  report.step.backward_ms = backward_ms;
  report.step.optimizer_ms = 8;
  report.step.rest_ms = 2;
  return report;
}

}  // namespace

RunReport BeforeReport() {
  RunReport report = Common(100, 30, 60);
  report.modules = {Module("patch_embed", 4, 6),
                    Unmeasured("blocks"),
                    Module("blocks.0", 10, 15),
                    Module("blocks.1", 14, 36),
                    Module("blocks.1.attn", 4, 5),
                    Module("blocks.1.mlp", 9, 30),
                    Module("blocks.1.mlp.window", 6, 24),
                    Module("blocks.1.mlp.fc", 3, 6),
                    Module("head", 1, 2)};
  report.ops = {Op("GatherBackward0", "backward", 24), Op("aten::gather", "forward", 6),
                Op("aten::addmm", "forward", 10), Op("AddmmBackward0", "backward", 20)};
  report.hotspot = BackwardHotspot("blocks.1.mlp.window", "GatherBackward0");
  report.findings = {
      FindingOf("gather-backward", "blocks.1.mlp.window", "GatherBackward0", Severity::kHigh),
      FindingOf("fresh-memory-pages", "", "", Severity::kLow),
      FindingOf("tiny-kernels", "", "", Severity::kLow)};
  FixResult fix;
  fix.recipe = "gather-to-index";
  fix.status = "verified";
  fix.baseline.median_ms = 100;
  fix.candidate.median_ms = 71.4;
  fix.speedup = 1.4;
  report.fixes = {fix};
  return report;
}

RunReport AfterReport() {
  RunReport report = Common(70, 25, 35);
  report.modules = {Module("patch_embed", 4, 6),   Unmeasured("blocks"),
                    Module("blocks.0", 10, 15),    Module("blocks.1", 10, 11),
                    Module("blocks.1.attn", 4, 5), Module("blocks.1.mlp", 5, 4),
                    Module("blocks.1.norm", 1, 1), Unmeasured("blocks.1.mlp.window"),
                    Module("head", 1, 2)};
  report.ops = {Op("aten::index", "forward", 1), Op("IndexBackward0", "backward", 2),
                Op("aten::addmm", "forward", 10), Op("AddmmBackward0", "backward", 20)};
  report.hotspot = BackwardHotspot("blocks.0", "AddmmBackward0");
  report.findings = {FindingOf("fp32-matmul", "blocks.0", "aten::addmm", Severity::kMedium),
                     FindingOf("fresh-memory-pages", "", "", Severity::kLow),
                     FindingOf("tiny-kernels", "", "", Severity::kMedium)};
  return report;
}

}  // namespace advisor::testing
