#include "engine/model/door.h"

namespace advisor {

const char* DoorName(Door door) {
  switch (door) {
    case Door::kModel:
      return "model";
    case Door::kScript:
      return "script";
    case Door::kRanks:
      return "ranks";
    case Door::kTrace:
      return "trace";
    case Door::kSnapshot:
      return "snapshot";
  }
  return "model";
}

std::optional<Door> ParseDoor(std::string_view name) {
  for (const Door door :
       {Door::kModel, Door::kScript, Door::kRanks, Door::kTrace, Door::kSnapshot}) {
    if (name == DoorName(door)) return door;
  }
  return std::nullopt;
}

}  // namespace advisor
