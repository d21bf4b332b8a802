// The front doors a run comes in through, as one enum: parsed from their names where they enter
// (recipe files) and named where they leave (report.json, report.md/html, the rules' facts), so
// that everything between compares enum values, never strings.
#pragma once

#include <optional>
#include <string_view>

namespace advisor {

enum class Door {
  kModel,   // "model": a TorchScript model.pt (advisor bisect model.pt)
  kScript,  // "script": the user's training command (advisor bisect -- python train.py)
  // "ranks": a script whose launcher (torchrun) starts several ranks. Only recipes and the
  // autotest tell it from kScript (a DDP knob needs it); a run's RunInfo::mode says kScript.
  kRanks,
  kTrace,  // "trace": a profiler trace read afterwards (advisor analyze trace.json)
  // "snapshot": an allocator snapshot read afterwards (advisor analyze snapshot.pickle): memory
  // only, no time
  kSnapshot,
};

// "model", "script", "ranks", "trace", "snapshot".
const char* DoorName(Door door);

// The door `name` names (DoorName's inverse); nullopt for any other text.
std::optional<Door> ParseDoor(std::string_view name);

}  // namespace advisor
