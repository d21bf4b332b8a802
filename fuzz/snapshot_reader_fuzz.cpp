// Fuzz target for the snapshot door: any bytes, as a memory snapshot file, must give a report or
// one PickleError or SnapshotError line, never a crash, a hang, a leak or another exception. The
// bytes go through the plain-pickle reader, the snapshot's layout checks, the replay and the
// attribution, and the report that comes out is written as report.json, report.md and
// report.html (the memory chart draws whatever times and sizes survived the checks).
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/memory_snapshot/snapshot_reader.h"
#include "engine/memory_snapshot/snapshot_report.h"
#include "engine/pickle_input/pickle_reader.h"
#include "engine/report/html_writer.h"
#include "engine/report/json_writer.h"
#include "engine/report/markdown_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  advisor::PickleLimits limits;
  // Bounds as a real read has them, smaller, so that inputs meet them quickly.
  limits.max_values = 1u << 16;
  limits.max_depth = 16;
  try {
    const advisor::MemorySnapshot snapshot = advisor::SnapshotOfDocument(
        advisor::ParsePickle(std::string(reinterpret_cast<const char*>(data), size), "fuzz.pickle",
                             limits),
        "fuzz.pickle");
    const advisor::RunReport report = advisor::ReportOfSnapshot(snapshot);
    advisor::ReportToJsonText(report);
    advisor::ReportToMarkdown(report);
    advisor::ReportToHtml(report);
  } catch (const advisor::PickleError&) {
    // A refused pickle is a correct outcome.
  } catch (const advisor::SnapshotError&) {
    // So is a pickle that is no snapshot.
  }
  return 0;
}
