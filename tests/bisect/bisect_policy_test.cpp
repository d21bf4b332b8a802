#include "engine/bisect/bisect_policy.h"

#include <gtest/gtest.h>

#include <utility>

#include "engine/util/median.h"

namespace advisor {
namespace {

// A child decided from one step: its costs are that step's.
ChildCost Child(const std::string& path, const std::string& structure, double forward,
                double backward) {
  ChildCost child;
  child.path = path;
  child.structure = structure;
  child.forward = forward;
  child.backward = backward;
  child.steps = {forward + backward};
  child.forward_steps = {forward};
  child.backward_steps = {backward};
  return child;
}

// A child whose window's steps cost these (forward, backward) each, decided on their medians.
ChildCost ChildOfSteps(const std::string& path, const std::string& structure,
                       const std::vector<std::pair<double, double>>& steps) {
  ChildCost child = Child(path, structure, 0, 0);
  child.steps.clear();
  child.forward_steps.clear();
  child.backward_steps.clear();
  for (const auto& [forward, backward] : steps) {
    child.steps.push_back(forward + backward);
    child.forward_steps.push_back(forward);
    child.backward_steps.push_back(backward);
  }
  child.forward = Median(child.forward_steps);
  child.backward = Median(child.backward_steps);
  return child;
}

double Sum(const std::vector<ChildCost>& children) {
  double total = 0;
  for (const ChildCost& child : children) total += child.total();
  return total;
}

TEST(DecideLevel, ChoosesTheOneSlowInstanceAmongIdenticalBlocks) {
  LevelInput input;
  input.children = {Child("stem", "Stem", 1, 2)};
  for (int i = 0; i < 6; ++i) {
    const double scale = i == 3 ? 5.0 : 1.0;  // blocks.3 does five times the work
    input.children.push_back(Child("blocks." + std::to_string(i), "Block", 2 * scale, 4 * scale));
  }
  input.parent_cost = Sum(input.children);
  input.step_cost = input.parent_cost + 5;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "blocks");
  EXPECT_TRUE(decision.chosen_is_group);
  EXPECT_EQ(decision.chosen_member, "blocks.3");
  EXPECT_NE(decision.reason.find("median"), std::string::npos) << decision.reason;
  ASSERT_EQ(decision.candidates.size(), 2u);
  EXPECT_EQ(decision.candidates[0].path, "blocks");
  EXPECT_EQ(decision.candidates[0].members.size(), 6u);
  EXPECT_NEAR(decision.candidates[0].share, 60.0 / 63.0, 1e-9);
}

TEST(DecideLevel, MeasuresAnInstanceAgainstItsSiblingsWithoutItself) {
  // slow_block_deep's stages on a loaded 2-core CPU (ms per step, forward/backward): stage 2
  // does about twice the work; stage 3 ran slower than 0 and 1 for the same work. With stage 2
  // in its own yardstick the median is 3.1 ms and stage 2 only 1.9x of it.
  LevelInput input;
  input.parent = "trunk.stages";
  input.children = {
      Child("trunk.stages.0", "Stage", 1.21, 1.52), Child("trunk.stages.1", "Stage", 1.29, 1.44),
      Child("trunk.stages.2", "Stage", 2.77, 3.17), Child("trunk.stages.3", "Stage", 2.02, 1.50)};
  input.parent_cost = Sum(input.children);
  input.step_cost = 18;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "trunk.stages.2");
  EXPECT_NE(decision.reason.find("2.2x the median of its 3 same-shaped siblings"),
            std::string::npos)
      << decision.reason;
}

TEST(DecideLevel, AnInstanceOfAnotherWidthIsNoSiblingButOneWithAGateIs) {
  // Twelve Blocks of one structure; blocks.2 is 2.5x the others, too little of them to stand out.
  LevelInput input;
  for (int i = 0; i < 12; ++i) {
    ChildCost block =
        Child("blocks." + std::to_string(i), "Block", i == 2 ? 5 : 2, i == 2 ? 10 : 4);
    block.parameters = 8320;
    input.children.push_back(block);
  }
  input.parent_cost = Sum(input.children);
  input.step_cost = input.parent_cost;
  input.children[2].parameters = 8320 + 64;  // a gate of its own
  EXPECT_EQ(DecideLevel(input).chosen_member, "blocks.2");
  input.children[2].parameters = 2 * 8320;  // twice as wide: its work is another block's
  EXPECT_EQ(DecideLevel(input).chosen_member, "");
}

TEST(DecideLevel, ABlockSlowedInOneStepIsNoAnomalyOfThatStep) {
  // Another process held the CPU while blocks.1 ran in step 2: 2.5x its siblings there, and in
  // no other step of the window.
  LevelInput input;
  input.step = 2;
  for (int i = 0; i < 4; ++i) {
    const double cost = i == 1 ? 25 : 10;
    ChildCost block = Child("blocks." + std::to_string(i), "Block", cost / 3, 2 * cost / 3);
    block.steps = {10, 10, cost, 10, 10};
    input.children.push_back(block);
  }
  input.parent_cost = Sum(input.children);
  input.step_cost = input.parent_cost;
  EXPECT_EQ(DecideLevel(input).chosen_member, "");

  // Slowed in three steps of five, it is.
  for (const int step : {0, 4}) input.children[1].steps[step] = 25;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen_member, "blocks.1");
  EXPECT_NE(decision.reason.find("beyond their own spread in 3 of 5 steps"), std::string::npos)
      << decision.reason;
}

TEST(DecideLevel, NeedsTwoOtherInstancesToCallOneAnOutlier) {
  LevelInput input;
  input.children = {Child("a", "Block", 1, 1), Child("b", "Block", 3, 3)};
  input.parent_cost = Sum(input.children);
  input.step_cost = 100;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "b");
  EXPECT_NE(decision.reason.find("holds 75%"), std::string::npos) << decision.reason;
}

TEST(DecideLevel, PrefersALargeBackwardExcessOverAMerelyBigChild) {
  // The ViT case: patch_drop is cheap forward but its deterministic backward is slow;
  // the blocks hold most of the time, evenly.
  LevelInput input;
  input.children = {Child("patch_embed", "PatchEmbed", 2, 4),
                    Child("patch_drop", "PatchDropout", 0.1, 4)};
  for (int i = 0; i < 12; ++i) {
    input.children.push_back(Child("blocks." + std::to_string(i), "Block", 4, 8));
  }
  input.parent_cost = Sum(input.children);
  input.step_cost = 160;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "patch_drop");
  EXPECT_FALSE(decision.chosen_is_group);
  EXPECT_EQ(decision.phase, Phase::kBackward);
  EXPECT_NE(decision.reason.find("backward takes 40.0x its forward"), std::string::npos)
      << decision.reason;
}

TEST(DecideLevel, ABackwardExcessInOnlySomeStepsIsNoAnomalyAgainstALargerChild) {
  // recsys_train's level 1 on a loaded 2-core VM (ms, measured): the users tower holds 90 % of
  // the model; the items tower's embedding backward took 1.6-1.7 ms in two steps and 4.5-8.6 in
  // the three in which other processes held the CPU. Its medians read 16x its forward.
  LevelInput input;
  input.children = {
      ChildOfSteps("users", "UserTower",
                   {{6.6, 22.8}, {14.8, 18.9}, {13.5, 21.6}, {10.7, 57.5}, {28.6, 70.3}}),
      ChildOfSteps("items", "ItemTower",
                   {{0.23, 1.72}, {0.29, 1.59}, {0.29, 4.52}, {0.28, 8.6}, {0.25, 4.53}})};
  input.parent_cost = Sum(input.children);
  input.step_cost = 80;
  LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "users") << decision.reason;
  EXPECT_NE(decision.reason.find("holds"), std::string::npos) << decision.reason;

  // Beyond 3x by 2 % of the step in 3 of 5 steps is most of them, but against a child that
  // costs more it takes 4 of 5.
  input.children[1].backward_steps[1] = 4.6;
  decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "items");
  EXPECT_NE(decision.reason.find("(expected at most 3x) in 4 of 5 steps"), std::string::npos)
      << decision.reason;
}

TEST(DecideLevel, ABackwardExcessInMostStepsIsAnAnomalyWhereNoChildCostsMore) {
  LevelInput input;
  input.children = {ChildOfSteps("a", "A", {{1, 2}, {1, 2}, {1, 2}}),
                    ChildOfSteps("b", "B", {{0.5, 9}, {0.5, 9}, {0.5, 1}})};
  input.parent_cost = Sum(input.children);
  input.step_cost = 20;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "b");
  EXPECT_NE(decision.reason.find("in 2 of 3 steps"), std::string::npos) << decision.reason;
}

TEST(DecideLevel, AnAnomalyInsideASingleContainerThatHoldsMostStillWins) {
  // The eager ViT script: the blocks are one nn.Sequential instance holding most of the step,
  // spread over twelve blocks; patch_drop's backward excess is the place to name.
  LevelInput input;
  input.children = {Child("patch_embed", "PatchEmbed", 2, 4),
                    Child("patch_drop", "PatchDropout", 0.1, 4),
                    Child("blocks", "Sequential", 48, 96)};
  input.parent_cost = Sum(input.children);
  input.step_cost = 160;
  LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "patch_drop");
  EXPECT_EQ(decision.look_ahead, "blocks") << "what the blocks hold inside is not known yet";

  // Inside, twelve even blocks and no anomaly: nothing there is known avoidable, and the
  // excess, 2.6 % of the blocks' cost, keeps the level.
  input.prospect = Prospect{"blocks", 0, false};
  decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "patch_drop") << decision.reason;
  EXPECT_EQ(decision.look_ahead, "");
}

TEST(DecideLevel, AHostBoundLoopInTheHotterChildOutweighsASmallerAnomaly) {
  // recsys_train.py's level 1 on a quiet VM: the items tower's embedding gradient, 0.63 ms/step
  // beyond 3x its forward in every step, beside the users tower at 88 % whose history mean is a
  // Python loop (512 aten::mean a step).
  ChildCost users = Child("users", "UserTower", 8.0, 12.0);
  users.loop = 3.1;
  LevelInput input;
  input.children = {users, Child("items", "ItemTower", 0.126, 1.007)};
  input.parent_cost = Sum(input.children);
  input.step_cost = 25;
  LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "users") << decision.reason;
  EXPECT_EQ(decision.look_ahead, "") << "the loop is seen in this window";
  EXPECT_NE(decision.reason.find("holds 95%"), std::string::npos) << decision.reason;
  EXPECT_NE(decision.reason.find("items's anomaly (0.629 ms/step beyond its prediction) gives "
                                 "way to users: a host-bound loop of its ops takes 3.1 ms/step"),
            std::string::npos)
      << decision.reason;

  // A loop smaller than the excess is no reason: the tower is looked into first.
  input.children[0].loop = 0.5;
  decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "items") << decision.reason;
  EXPECT_EQ(decision.look_ahead, "users");
}

TEST(DecideLevel, AHostBoundLoopInACoolerChildIsAnAnomaly) {
  // hf_trainer_docs.py's level 1 (bench/user_trial): a BERT at 64 % of the model, its time the
  // layers' own work, beside a token pooling written as a Python loop over 128 positions, whose
  // forward ops are nearly all the loop's (4.78 of 4.88 ms/step).
  ChildCost pool = Child("pool", "MeanMaxPool", 4.88, 13.27);
  pool.leaf = true;
  pool.loop = 4.78;
  LevelInput input;
  input.children = {Child("bert", "BertModel", 26.4, 10.9), pool,
                    Child("classifier", "Linear", 0.05, 0.1)};
  input.children[2].leaf = true;
  input.parent_cost = Sum(input.children);
  input.step_cost = 77;
  LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "pool") << decision.reason;
  EXPECT_EQ(decision.phase, Phase::kOutside) << "the loop's backward nodes go with it";
  EXPECT_EQ(decision.look_ahead, "bert") << "what the BERT holds one level down is not yet known";
  EXPECT_NE(decision.reason.find("pool: a host-bound loop of its forward ops takes 4.78 ms/step"),
            std::string::npos)
      << decision.reason;

  // One level down the BERT holds nothing more to save: the loop keeps the level.
  input.prospect = Prospect{"bert", 0, false};
  EXPECT_EQ(DecideLevel(input).chosen, "pool");
  // Where its own ops held most of it, its op would be the larger place to name.
  input.prospect = Prospect{"bert", 0, true};
  EXPECT_EQ(DecideLevel(input).chosen, "bert");

  // A leaf hotter than the loop's module is the larger place to name, and says why.
  input.prospect.reset();
  input.children[0].leaf = true;
  decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "bert") << decision.reason;
  EXPECT_NE(decision.reason.find("pool's anomaly (4.78 ms/step in a host-bound loop of its forward "
                                 "ops) gives way to bert: a leaf"),
            std::string::npos)
      << decision.reason;
  input.children[0].leaf = false;

  // A loop under 2 % of the step is no anomaly: the BERT holds the level by its share.
  input.prospect.reset();
  input.children[1].loop = 1.2;
  decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "bert") << decision.reason;
  EXPECT_EQ(decision.look_ahead, "");
}

TEST(DecideLevel, AHotterChildWhoseOwnOpsHoldMostOneLevelDownOutweighsAnAnomaly) {
  // seq_autoencoder.py: the encoder (a leaf) makes a full-size gradient at every time step, its
  // backward 5.8x its forward; the decoder holds 71 %, nearly all in its own ops beside two
  // small Linears.
  LevelInput input;
  input.children = {Child("encoder", "GRUEncoder", 6, 35), Child("to_latent", "Linear", 0.05, 0.1),
                    Child("decoder", "GRUDecoder", 30, 70)};
  input.children[0].leaf = true;
  input.children[1].leaf = true;
  input.parent_cost = Sum(input.children);
  input.step_cost = 160;
  LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "encoder");
  EXPECT_EQ(decision.look_ahead, "decoder");

  input.prospect = Prospect{"decoder", 0, true};
  decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "decoder") << decision.reason;
  EXPECT_NE(decision.reason.find("its own ops hold most of its time one level down"),
            std::string::npos)
      << decision.reason;

  // The prospect of another child says nothing of this one.
  input.prospect = Prospect{"encoder", 0, true};
  EXPECT_EQ(DecideLevel(input).look_ahead, "decoder");
}

TEST(DecideLevel, AnAnomalyInsideTheHotterChildThatIsLargerOutweighsTheOneBeside) {
  LevelInput input;
  input.children = {Child("stem", "Stem", 0.1, 4), Child("trunk", "Trunk", 40, 80)};
  input.parent_cost = Sum(input.children);
  input.step_cost = 130;
  input.prospect = Prospect{"trunk", 12, false};
  LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "trunk") << decision.reason;
  EXPECT_NE(decision.reason.find("an anomaly among its children takes 12 ms/step"),
            std::string::npos)
      << decision.reason;

  input.prospect->anomaly_excess = 3;  // smaller than stem's 3.7
  EXPECT_EQ(DecideLevel(input).chosen, "stem");
}

TEST(ProspectOf, SaysWhetherTheParentsOwnOpsHoldMostAndItsLargestAnomaly) {
  // The decoder's children: two small Linears beside its own loop.
  LevelInput decoder;
  decoder.parent = "decoder";
  decoder.children = {Child("decoder.init_h", "Linear", 0.02, 0.04),
                      Child("decoder.readout", "Linear", 0.5, 1.0)};
  decoder.parent_self = 98;
  decoder.parent_cost = Sum(decoder.children) + decoder.parent_self;
  decoder.step_cost = 160;
  Prospect prospect = ProspectOf(decoder);
  EXPECT_EQ(prospect.path, "decoder");
  EXPECT_TRUE(prospect.own_ops_hold_most);
  EXPECT_EQ(prospect.anomaly_excess, 0);

  // Four blocks, one slow: no own ops, the slow block's excess over its siblings' median.
  LevelInput trunk;
  trunk.parent = "trunk";
  for (int i = 0; i < 4; ++i) {
    trunk.children.push_back(Child("trunk." + std::to_string(i), "Block", 2, 4));
  }
  trunk.children[2].backward = 16;
  trunk.children[2].steps = {18};
  trunk.children[2].backward_steps = {16};
  trunk.parent_cost = Sum(trunk.children);
  trunk.step_cost = 40;
  prospect = ProspectOf(trunk);
  EXPECT_FALSE(prospect.own_ops_hold_most);
  EXPECT_DOUBLE_EQ(prospect.anomaly_excess, 12);
}

TEST(DecideLevel, ALeafCostingMoreThanTheAnomalousSiblingAltogetherWins) {
  // fp32_mlp's item tower on a loaded CPU (ms/step, measured): the wide Linear towers.item.2
  // holds 54 %; the GroupSum after it copies the expanded gradient in its backward, 5.8x its
  // forward. The Linear's one GEMM is the larger place to name.
  ChildCost wide = Child("towers.item.2", "Linear", 0.321, 0.728);
  wide.leaf = true;
  ChildCost group_sum = Child("towers.item.3", "GroupSum", 0.119, 0.695);
  group_sum.leaf = true;
  LevelInput input;
  input.parent = "towers.item";
  input.children = {Child("towers.item.0", "Linear", 0.027, 0.033),
                    Child("towers.item.1", "ReLU", 0.005, 0.008), wide, group_sum};
  input.parent_cost = Sum(input.children);
  input.step_cost = 2.4;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "towers.item.2");
  EXPECT_NE(decision.reason.find("holds"), std::string::npos) << decision.reason;

  // Not a leaf, the same costs would be looked into first: the anomaly wins until then.
  input.children[2].leaf = false;
  EXPECT_EQ(DecideLevel(input).chosen, "towers.item.3");
  EXPECT_EQ(DecideLevel(input).look_ahead, "towers.item.2");
}

TEST(DecideLevel, IgnoresAnomaliesBelowTwoPercentOfTheStep) {
  LevelInput input;
  input.children = {Child("tiny", "Tiny", 0.001, 1.5), Child("big", "Big", 30, 60),
                    Child("small", "Small", 1, 2)};
  input.parent_cost = Sum(input.children);
  input.step_cost = 100;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "big");
  EXPECT_NE(decision.reason.find("holds"), std::string::npos) << decision.reason;
}

TEST(DecideLevel, ChoosesAChildThatStandsOutWithoutAMajority) {
  LevelInput input;
  input.children = {Child("a", "A", 10, 20), Child("b", "B", 4, 8), Child("c", "C", 3, 6)};
  input.parent_self = 10;  // some of the parent's time is its own
  input.parent_cost = Sum(input.children) + input.parent_self;
  input.step_cost = 200;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "a");
  EXPECT_NE(decision.reason.find("2.5x the next child"), std::string::npos) << decision.reason;
}

TEST(DecideLevel, StopsAtAParentWhoseOwnOpsOutweighEveryChild) {
  // A module that sorts in its own forward and calls three small projections; k's excess over
  // its siblings (noise on a loaded machine) is smaller than the parent's own sort.
  LevelInput input;
  input.parent = "attend";
  input.children = {Child("attend.q", "Linear", 1, 2), Child("attend.k", "Linear", 2, 3),
                    Child("attend.v", "Linear", 1, 2)};
  input.parent_self = 27;
  input.parent_cost = Sum(input.children) + input.parent_self;
  input.step_cost = 80;
  const LevelDecision decision = DecideLevel(input);
  EXPECT_TRUE(decision.chosen.empty()) << decision.chosen;
  EXPECT_NE(decision.reason.find("the parent's own ops (71% of its time) outweigh every child"),
            std::string::npos)
      << decision.reason;
}

TEST(DecideLevel, StopsWhenTimeIsSpreadEvenly) {
  LevelInput input;
  for (int i = 0; i < 4; ++i) {
    input.children.push_back(Child("layers." + std::to_string(i), "Layer", 5, 10));
  }
  input.children.push_back(Child("head", "Head", 5, 10));
  input.parent_cost = Sum(input.children);
  input.step_cost = input.parent_cost;
  const LevelDecision decision = DecideLevel(input);
  // The group of four layers holds 80%: descend into it, then nothing stands out among them.
  EXPECT_EQ(decision.chosen, "layers");
  EXPECT_TRUE(decision.chosen_is_group);
  EXPECT_TRUE(decision.chosen_member.empty());

  LevelInput members;
  members.parent = "layers";
  members.parent_cost = 60;
  members.step_cost = input.step_cost;
  members.children.assign(input.children.begin(), input.children.begin() + 4);
  const LevelDecision inner = DecideLevel(members);
  EXPECT_TRUE(inner.chosen.empty());
  EXPECT_NE(inner.reason.find("no child holds a clear majority"), std::string::npos);
}

TEST(DecideLevel, ASingleInstanceBeatsTheSumOfEvenSiblingsEachFarSmaller) {
  // point_graph's level 1 (ms/step): three even message layers, 56 % together, and geometry,
  // one instance at 40 %, twice each layer.
  LevelInput input;
  input.children = {Child("embed", "Linear", 0.1, 0.2), Child("geometry", "EdgeGeometry", 6, 10)};
  for (int i = 0; i < 3; ++i) {
    input.children.push_back(Child("layers." + std::to_string(i), "MessageLayer", 2.5, 5));
  }
  input.children.push_back(Child("out", "Linear", 0.2, 0.4));
  input.parent_cost = Sum(input.children);
  input.step_cost = input.parent_cost + 2;
  LevelDecision decision = DecideLevel(input);
  EXPECT_EQ(decision.candidates.front().path, "layers");
  EXPECT_EQ(decision.chosen, "geometry");
  EXPECT_FALSE(decision.chosen_is_group);
  EXPECT_NE(decision.reason.find("2.1x the costliest of the 3 instances of layers"),
            std::string::npos)
      << decision.reason;

  // An instance not 1.5x each layer (GPT-2's embedding beside its blocks) leaves the group its
  // sum: the container of identical blocks is where the time is.
  input.children[1] = Child("geometry", "EdgeGeometry", 3, 7);
  input.parent_cost = Sum(input.children);
  decision = DecideLevel(input);
  EXPECT_EQ(decision.chosen, "layers");
  EXPECT_TRUE(decision.chosen_is_group);
}

TEST(DecideLevel, GroupsAreRelativeToTheParent) {
  LevelInput input;
  input.parent = "encoder";
  input.children = {Child("encoder.stages.0", "Stage", 1, 2),
                    Child("encoder.stages.1", "Stage", 1, 2), Child("encoder.norm", "Norm", 1, 1)};
  input.parent_cost = Sum(input.children);
  input.step_cost = 100;
  const LevelDecision decision = DecideLevel(input);
  ASSERT_EQ(decision.candidates.size(), 2u);
  EXPECT_EQ(decision.candidates[0].path, "encoder.stages");
  EXPECT_EQ(decision.candidates[0].members,
            (std::vector<std::string>{"encoder.stages.0", "encoder.stages.1"}));
}

TEST(DecideLevel, NoChildrenStops) {
  const LevelDecision decision = DecideLevel(LevelInput{});
  EXPECT_TRUE(decision.chosen.empty());
  EXPECT_TRUE(decision.candidates.empty());
}

}  // namespace
}  // namespace advisor
