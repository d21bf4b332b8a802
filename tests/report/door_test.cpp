// The front doors' names: what report.json, the reports and the facts write for RunInfo::mode, and
// what recipe files name, read back into the same enum.
#include "engine/model/door.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

TEST(Door, NamesAreTheStringsTheReportsWrite) {
  EXPECT_STREQ(DoorName(Door::kModel), "model");
  EXPECT_STREQ(DoorName(Door::kScript), "script");
  EXPECT_STREQ(DoorName(Door::kRanks), "ranks");
  EXPECT_STREQ(DoorName(Door::kTrace), "trace");
  EXPECT_STREQ(DoorName(Door::kSnapshot), "snapshot");
}

TEST(Door, EveryNameParsesBackIntoItsDoor) {
  for (const Door door :
       {Door::kModel, Door::kScript, Door::kRanks, Door::kTrace, Door::kSnapshot}) {
    EXPECT_EQ(ParseDoor(DoorName(door)), door) << DoorName(door);
  }
}

TEST(Door, AnyOtherTextIsNoDoor) {
  for (const char* name : {"", "Model", "script ", "notebook", "model,script"}) {
    EXPECT_FALSE(ParseDoor(name).has_value()) << '"' << name << '"';
  }
}

}  // namespace
}  // namespace advisor
