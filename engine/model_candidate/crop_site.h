// Where the crop-first rewrite can move a crop: in an input-stage graph, a spatial crop
// (aten::slice or aten::narrow on the last two dims) of a tensor that size-preserving transforms
// computed from the stage's inputs. The analysis only reads the graph; crop_first.h changes it.
//
// The transforms it recognises: pointwise ops (they commute with a crop exactly), slices and
// concatenations along other dims, and ops that look at neighbours while keeping the size:
// max_pool2d and avg_pool2d with stride 1, conv2d with stride 1 (its kernel checked at run time),
// and roll. Their reach (how far from a pixel they read) is summed into a margin: transforms run on
// the crop widened by the margin give the same pixels inside the crop. Padded ops (pooling,
// convolution) see the image's border where the widened crop reaches it, so the margin is clamped
// to the image; roll wraps around, so its widened crop wraps too. A graph with both is refused.
#pragma once

#include <torch/csrc/jit/ir/ir.h>

#include <cstdint>
#include <string>
#include <vector>

namespace advisor {

// How far one neighbour op reads, as values of the graph: the largest of `constant`, |shift| for
// each of `shifts`, max(|low|, |high|) for each loop index over range(low, high) in `ranges`, and
// conv2d's reach from its weight (`conv`, checked at run time to keep the size), times each of
// `trip_counts` (the loops that apply it again to its own output).
struct CropReach {
  std::int64_t constant = 0;
  std::vector<torch::jit::Value*> shifts;
  std::vector<std::pair<torch::jit::Value*, torch::jit::Value*>> ranges;
  torch::jit::Node* conv = nullptr;
  std::vector<torch::jit::Value*> trip_counts;
};

// One spatial crop: a slice (start, end) or narrow (start, length) of dim -2 or -1.
struct SpatialCrop {
  torch::jit::Node* node = nullptr;
  int dim = -1;  // -2 or -1
};

struct CropSite {
  torch::jit::Node* first = nullptr;        // the crop's first node: the rewrite inserts before it
  std::vector<torch::jit::Node*> chain;     // consecutive slices and narrows, `first` to the last
  std::vector<SpatialCrop> spatial;         // those of the chain that crop dim -2 or -1
  torch::jit::Value* cropped = nullptr;     // what the chain crops
  std::vector<torch::jit::Node*> moved;     // top-level nodes computing `cropped`, in graph order
  std::vector<torch::jit::Value*> sources;  // the stage's inputs they read
  std::vector<torch::jit::Value*> operands;  // other tensors pointwise ops combine with the data
  std::vector<CropReach> reach;             // the neighbour ops' reach, summed into the margin
  bool circular = false;                    // roll: the widened crop wraps around the image
};

struct CropSearch {
  std::vector<CropSite> sites;
  // Why crops that follow transforms were not taken, one sentence each, e.g. "the crop at line
  // 12 follows aten::sum, which the rewrite does not move".
  std::vector<std::string> refused;
};

// Finds the crops of `graph` (inlined; its calls would hide the transforms) that come after
// transforms of its inputs. `input_ranks[i]` is the rank of graph input i + 1 (after self); the
// rank tells which positive dims are the last two. Crop chains starting at a node of `skip` (the
// crops an earlier rewrite made) are left alone.
CropSearch FindCropSites(torch::jit::Graph& graph, const std::vector<int>& input_ranks,
                         const std::vector<const torch::jit::Node*>& skip = {});

}  // namespace advisor
