// The timeline as the script probe sends it to the controller: compact JSON (arrays, names
// interned), written inside the user's process by the probe library and read back by advisor.
// What the probe sends is not trusted: the reader checks every field's type and range and throws
// ProbeMessageError naming the first problem.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "engine/json_input/json_field.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// A probe message (or a node summary's copy of one) that cannot be used: the house JSON reader's
// error, naming the message and the field.
using ProbeMessageError = JsonInputError;

// Events and probe statuses (not steps: the Python side measures those).
std::string EventsToJson(const Timeline& timeline);
// Fills `out`'s events and probe statuses from EventsToJson's output.
void EventsFromJson(const JsonField& events, Timeline& out);

// What the allocator held as a window's recording began, {"device", "allocated_bytes"}: in a
// probe message's memory.at_start and in a node summary's window.
nlohmann::json MemoryAtStartToJson(const MemoryAtStart& at_start);
MemoryAtStart MemoryAtStartFromJson(const JsonField& at_start);

nlohmann::json StepsToJson(const std::vector<StepSpan>& steps);
std::vector<StepSpan> StepsFromJson(const JsonField& steps);

}  // namespace advisor
