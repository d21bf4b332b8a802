// Same-shaped siblings are one group by their structure, not by TorchScript's type names.
#include "engine/window/module_info.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

void Add(ModuleTree& modules, const std::string& path, const std::string& type) {
  modules[path].path = path;
  modules[path].type = type;
}

// A Block at `path` with a Linear `fc` of `width` outputs and an activation `act`.
void AddBlock(ModuleTree& modules, const std::string& path, const std::string& type, int width) {
  Add(modules, path, type);
  Add(modules, path + ".fc", "__torch__.torch.nn.modules.linear.Linear");
  modules[path + ".fc"].parameters = width * 16 + width;
  modules[path].parameters = modules[path + ".fc"].parameters;
  Add(modules, path + ".act", "__torch__.torch.nn.modules.activation.GELU");
}

TEST(ModuleStructure, AManglingOfTheTypeNameIsTheSameType) {
  EXPECT_EQ(UnmangledType("__torch__.model.___torch_mangle_5.Block"), "__torch__.model.Block");
  EXPECT_EQ(UnmangledType("__torch__.model.Block"), "__torch__.model.Block");
}

TEST(ModuleStructure, AMangledAndAnUnmangledBlockOfOneShapeAreOneGroup) {
  ModuleTree modules;
  AddBlock(modules, "blocks.0", "__torch__.model.Block", 64);
  AddBlock(modules, "blocks.1", "__torch__.model.___torch_mangle_5.Block", 64);
  EXPECT_EQ(StructureOf(modules, "blocks.0"), StructureOf(modules, "blocks.1"));
}

TEST(ModuleStructure, BlocksWithOtherChildrenAreNot) {
  ModuleTree modules;
  AddBlock(modules, "blocks.0", "__torch__.model.Block", 64);
  AddBlock(modules, "blocks.1", "__torch__.model.Block", 64);
  Add(modules, "blocks.1.extra", "__torch__.model.Extra");
  EXPECT_NE(StructureOf(modules, "blocks.0"), StructureOf(modules, "blocks.1"));
  // A child's descendants are not the parent's children: blocks.1 is no child of blocks.
  EXPECT_EQ(StructureOf(modules, "blocks.0").find("blocks.1"), std::string::npos);
}

// How many parameters make two instances another block is the comparison's to say
// (kParameterSlack): here, an extra bias, or a wider layer, leaves the structure as it is.
TEST(ModuleStructure, ParameterCountsAreLeftToTheComparison) {
  ModuleTree modules;
  AddBlock(modules, "blocks.0", "__torch__.model.Block", 64);
  AddBlock(modules, "blocks.1", "__torch__.model.Block", 32);
  AddBlock(modules, "blocks.2", "__torch__.model.Block", 64);
  modules["blocks.2"].parameters += 64;
  EXPECT_EQ(StructureOf(modules, "blocks.0"), StructureOf(modules, "blocks.1"));
  EXPECT_EQ(StructureOf(modules, "blocks.0"), StructureOf(modules, "blocks.2"));
}

}  // namespace
}  // namespace advisor
