// A line from the script probe, sent by a process that runs the user's code: any bytes are read
// into the engine's structs or refused with a ProbeMessageError naming the field, as advisor's
// channel reads them (a JSON object per line); a window that reads is measured as the bisection
// measures it (placement, attribution) and its lines as labelled steps' are (line costs), so
// hostile timelines reach the analysis too; a reply's DataLoader records are pooled as the report
// pools them, and its compiler's report is read.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis/line_costs.h"
#include "engine/analysis/view_ops.h"
#include "engine/json_input/json_document.h"
#include "engine/script/compile_message.h"
#include "engine/script/loader_summary.h"
#include "engine/script/probe_messages.h"
#include "engine/window/measured_window.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    // As the channel reads a line: it refuses what is not a JSON object before any reader sees it.
    const nlohmann::json message = advisor::ParseJsonDocument(
        std::string_view(reinterpret_cast<const char*>(data), size), "probe message");
    if (!message.is_object()) return 0;
    const std::string type = advisor::MessageType(message);
    if (type == "hello") advisor::ReadHello(message);
    if (type == "model") advisor::ReadModel(message);
    if (type == "ended") advisor::ReadEnded(message);
    if (type == "fatal") advisor::ReadFatal(message);
    if (type == "steps" || type == "window") {
      if (std::optional<advisor::LoaderRecords> loader = advisor::ReadLoaderRecords(message)) {
        advisor::SummariseLoaderEpochs({{*loader, 1}});
      }
      advisor::ReadCompileReport(message);
    }
    if (type == "steps") advisor::ReadSteps(message);
    if (type == "window") {
      const advisor::ProbeWindow window = advisor::ReadWindow(message);
      const advisor::MeasuredWindow measured = advisor::MeasureWindow(window.window.timeline);
      measured.attribution->StepOps();
      const advisor::LabelledSteps labelled = advisor::ReadLabelledSteps(window);
      advisor::LineOfOp(labelled, "aten::gather");
      const std::vector<advisor::LineCost> lines = advisor::CostsByLine(labelled);
      advisor::ScopeLines(lines, advisor::CallsPerStep(labelled), 10.0, 100.0);
      advisor::ViewOpMs(advisor::OwnOpsOfLines(lines));
    }
  } catch (const advisor::ProbeMessageError&) {
  } catch (const advisor::RankEnvironmentError&) {
    // A hello whose RANK or WORLD_SIZE is out of range: advisor ends the run with one line naming
    // them (ScriptSource::Connect), as it does a malformed message.
  }
  return 0;
}
