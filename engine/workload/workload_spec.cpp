#include "engine/workload/workload_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <limits>
#include <utility>

#include "engine/workload/json_document.h"
#include "engine/workload/json_keys.h"

namespace advisor {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 6> kDtypes = {"float32", "float16", "bfloat16",
                                                "int64",   "int32",   "bool"};
constexpr std::array<const char*, 5> kInits = {"randn", "rand", "randint", "zeros", "ones"};
constexpr std::array<const char*, 2> kLosses = {"cross_entropy", "mse"};
constexpr std::array<const char*, 2> kOptimizers = {"sgd", "adamw"};
constexpr std::array<const char*, 2> kDevices = {"cpu", "cuda"};
constexpr std::array<const char*, 2> kAutocastDtypes = {"bfloat16", "float16"};

template <std::size_t N>
bool OneOf(const std::string& value, const std::array<const char*, N>& allowed) {
  return std::any_of(allowed.begin(), allowed.end(),
                     [&](const char* candidate) { return value == candidate; });
}

// "" when a tensor of this shape stays within kMaxTensorElements; else why not.
std::string WhyTooLarge(const std::vector<std::int64_t>& shape) {
  std::int64_t elements = 1;
  std::string product;
  bool too_large = false;
  for (std::int64_t dim : shape) {
    too_large = too_large || dim > kMaxTensorElements / elements;
    if (!too_large) elements *= dim;
    product += (product.empty() ? "" : " x ") + std::to_string(dim);
  }
  if (!too_large) return "";
  return product + " elements are more than the " + std::to_string(kMaxTensorElements) +
         " (2^31) a workload tensor may have";
}

// The values randint may draw for a dtype (high exclusive): bool's 0 and 1, int32's range.
std::pair<std::int64_t, std::int64_t> RandintRange(const std::string& dtype) {
  if (dtype == "bool") return {0, 2};
  if (dtype == "int32") return {INT32_MIN, std::int64_t{INT32_MAX} + 1};
  return {INT64_MIN, INT64_MAX};
}

template <std::size_t N>
std::string Listed(const std::array<const char*, N>& allowed) {
  std::string out;
  for (const char* value : allowed) out += (out.empty() ? "" : "|") + std::string(value);
  return out;
}

// Reads fields with errors that name the source and the JSON path of the field.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& where, const std::string& problem) const {
    throw WorkloadError(source_ + ": " + where + ": " + problem);
  }

  const json& Member(const json& object, const std::string& where, const char* key) const {
    if (!object.contains(key)) Fail(where, std::string("missing field \"") + key + "\"");
    return object.at(key);
  }

  std::string String(const json& value, const std::string& where) const {
    if (!value.is_string()) Fail(where, "expected a string, got " + std::string(value.type_name()));
    return value.get<std::string>();
  }

  double Number(const json& value, const std::string& where) const {
    if (!value.is_number()) Fail(where, "expected a number, got " + std::string(value.type_name()));
    return value.get<double>();
  }

  // A number in [low, high) (high_open) or [low, high], checked as it is read.
  double NumberIn(const json& value, const std::string& where, double low, double high,
                  const char* range) const {
    const double number = Number(value, where);
    if (!(number >= low && number <= high)) {
      Fail(where, std::string("must be ") + range + ", got " + value.dump());
    }
    return number;
  }

  void Keys(const json& object, const std::string& where,
            const std::vector<std::string>& allowed) const {
    const std::string problem = UnknownKeyProblem(object, allowed);
    if (!problem.empty()) Fail(where, problem);
  }

  std::int64_t Integer(const json& value, const std::string& where) const {
    if (!value.is_number_integer()) {
      Fail(where, "expected an integer, got " + std::string(value.type_name()));
    }
    return value.get<std::int64_t>();
  }

  bool Bool(const json& value, const std::string& where) const {
    if (!value.is_boolean()) Fail(where, "expected true or false, got " + value.dump());
    return value.get<bool>();
  }

  template <std::size_t N>
  std::string Choice(const json& value, const std::string& where,
                     const std::array<const char*, N>& allowed) const {
    std::string chosen = String(value, where);
    if (!OneOf(chosen, allowed)) Fail(where, "\"" + chosen + "\" is not one of " + Listed(allowed));
    return chosen;
  }

  TensorSpec Tensor(const json& value, const std::string& where) const {
    if (!value.is_object()) Fail(where, "expected an object with \"shape\"");
    Keys(value, where, {"shape", "dtype", "init", "low", "high"});
    TensorSpec spec;
    const json& shape = Member(value, where, "shape");
    if (!shape.is_array() || shape.empty()) Fail(where + ".shape", "expected a non-empty list");
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const std::string dim_where = where + ".shape[" + std::to_string(i) + "]";
      const std::int64_t dim = Integer(shape[i], dim_where);
      if (dim <= 0) Fail(dim_where, "dimensions must be positive, got " + std::to_string(dim));
      spec.shape.push_back(dim);
    }
    const std::string too_large = WhyTooLarge(spec.shape);
    if (!too_large.empty()) Fail(where + ".shape", too_large);
    if (value.contains("dtype")) spec.dtype = Choice(value["dtype"], where + ".dtype", kDtypes);
    const bool integral = spec.dtype == "int64" || spec.dtype == "int32";
    spec.init = integral ? "randint" : "randn";
    if (value.contains("init")) spec.init = Choice(value["init"], where + ".init", kInits);
    if (value.contains("low")) spec.low = Integer(value["low"], where + ".low");
    if (value.contains("high")) spec.high = Integer(value["high"], where + ".high");
    if (spec.init == "randint" && spec.high <= spec.low) {
      Fail(where, "init \"randint\" needs \"high\" greater than \"low\" (" +
                      std::to_string(spec.low) + ")");
    }
    if (integral && (spec.init == "randn" || spec.init == "rand")) {
      Fail(where + ".init", "\"" + spec.init + "\" needs a floating dtype, not " + spec.dtype);
    }
    if (spec.init != "randint" && (value.contains("low") || value.contains("high"))) {
      Fail(where, "\"low\" and \"high\" apply only to init \"randint\"");
    }
    const auto [lowest, highest] = RandintRange(spec.dtype);
    if (spec.init == "randint" && (spec.low < lowest || spec.high > highest)) {
      Fail(where, "randint for " + spec.dtype + " needs " + std::to_string(lowest) +
                      " <= low < high <= " + std::to_string(highest) + ", got low " +
                      std::to_string(spec.low) + ", high " + std::to_string(spec.high));
    }
    return spec;
  }

 private:
  std::string source_;
};

std::vector<const TensorSpec*> TensorsOf(const WorkloadSpec& spec) {
  std::vector<const TensorSpec*> tensors;
  for (const TensorSpec& input : spec.inputs) tensors.push_back(&input);
  tensors.push_back(&spec.target);
  return tensors;
}

}  // namespace

WorkloadSpec ParseWorkload(const std::string& json_text, const std::string& source) {
  const Reader reader(source);
  const json root = ParseJsonDocument(json_text, source);
  if (!root.is_object()) reader.Fail("top level", "expected a JSON object");
  reader.Keys(root, "top level",
              {"inputs", "target", "loss", "optimizer", "deterministic", "seed", "device",
               "description", "source_model", "input_stage", "autocast", "cuda_graphs"});

  WorkloadSpec spec;
  spec.source = source;
  const json& inputs = reader.Member(root, "top level", "inputs");
  if (!inputs.is_array() || inputs.empty()) {
    reader.Fail("inputs", "expected a non-empty list of tensor specs");
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    spec.inputs.push_back(reader.Tensor(inputs[i], "inputs[" + std::to_string(i) + "]"));
  }
  spec.target = reader.Tensor(reader.Member(root, "top level", "target"), "target");
  for (const TensorSpec& tensor : spec.inputs) {
    if (tensor.shape.front() != spec.inputs.front().shape.front()) {
      reader.Fail("inputs", "dim 0 (the batch) differs between inputs");
    }
  }
  if (spec.target.shape.front() != spec.batch_size()) {
    reader.Fail("target.shape[0]", "must equal the inputs' batch size " +
                                       std::to_string(spec.batch_size()));
  }

  spec.loss = reader.Choice(reader.Member(root, "top level", "loss"), "loss", kLosses);
  const json& optimizer = reader.Member(root, "top level", "optimizer");
  if (!optimizer.is_object()) reader.Fail("optimizer", "expected an object with \"name\"");
  spec.optimizer.name =
      reader.Choice(reader.Member(optimizer, "optimizer", "name"), "optimizer.name", kOptimizers);
  // The keys each optimizer takes, as torch.optim names them (scripts/advisor_export.py agrees);
  // "foreach" on AdamW gets the step options' own message below.
  if (spec.optimizer.name == "sgd") {
    reader.Keys(optimizer, "optimizer", {"name", "lr", "momentum", "weight_decay", "foreach"});
  } else {
    reader.Keys(optimizer, "optimizer", {"name", "lr", "betas", "weight_decay", "foreach"});
  }
  constexpr double kHuge = std::numeric_limits<double>::max();
  if (optimizer.contains("lr")) {
    spec.optimizer.lr = reader.NumberIn(optimizer["lr"], "optimizer.lr",
                                        std::numeric_limits<double>::min(), kHuge,
                                        "a positive number");
  }
  if (optimizer.contains("momentum")) {
    spec.optimizer.momentum = reader.NumberIn(optimizer["momentum"], "optimizer.momentum", 0,
                                              kHuge, "a number >= 0");
  }
  if (optimizer.contains("weight_decay")) {
    spec.optimizer.weight_decay = reader.NumberIn(
        optimizer["weight_decay"], "optimizer.weight_decay", 0, kHuge, "a number >= 0");
  }
  if (optimizer.contains("betas")) {
    const json& betas = optimizer["betas"];
    if (!betas.is_array() || betas.size() != 2) reader.Fail("optimizer.betas", "expected [b1, b2]");
    // Each in [0, 1): torch.optim.AdamW's own check.
    constexpr double kBelowOne = 1.0 - std::numeric_limits<double>::epsilon() / 2;
    spec.optimizer.beta1 =
        reader.NumberIn(betas[0], "optimizer.betas[0]", 0, kBelowOne, "in [0, 1)");
    spec.optimizer.beta2 =
        reader.NumberIn(betas[1], "optimizer.betas[1]", 0, kBelowOne, "in [0, 1)");
  }
  if (optimizer.contains("foreach")) {
    spec.optimizer.foreach = reader.Bool(optimizer["foreach"], "optimizer.foreach");
  }

  if (root.contains("deterministic")) {
    spec.deterministic = reader.Bool(root["deterministic"], "deterministic");
  }
  if (root.contains("seed")) {
    const std::int64_t seed = reader.Integer(root["seed"], "seed");
    if (seed < 0) reader.Fail("seed", "must not be negative");
    spec.seed = static_cast<std::uint64_t>(seed);
  }
  if (root.contains("device")) spec.device = reader.Choice(root["device"], "device", kDevices);
  if (root.contains("description")) {
    spec.description = reader.String(root["description"], "description");
  }
  if (root.contains("input_stage")) spec.input_stage = ParseInputStage(root["input_stage"], source);
  if (root.contains("autocast")) {
    spec.autocast = reader.Choice(root["autocast"], "autocast", kAutocastDtypes);
  }
  if (root.contains("cuda_graphs")) {
    spec.cuda_graphs = reader.Bool(root["cuda_graphs"], "cuda_graphs");
  }
  const std::string misfit = WhyStepOptionsDoNotFit(spec);
  if (!misfit.empty()) throw WorkloadError(source + ": " + misfit);
  return spec;
}

WorkloadSpec ApplyOverrides(WorkloadSpec spec, const WorkloadOverrides& overrides) {
  if (overrides.batch_size) {
    if (*overrides.batch_size <= 0) {
      throw WorkloadError("--batch-size: must be positive, got " +
                          std::to_string(*overrides.batch_size));
    }
    for (TensorSpec& input : spec.inputs) input.shape.front() = *overrides.batch_size;
    spec.target.shape.front() = *overrides.batch_size;
    for (const TensorSpec* tensor : TensorsOf(spec)) {
      const std::string too_large = WhyTooLarge(tensor->shape);
      if (!too_large.empty()) {
        throw WorkloadError("--batch-size " + std::to_string(*overrides.batch_size) + ": " +
                            too_large);
      }
    }
  }
  if (overrides.device) {
    if (!OneOf(*overrides.device, kDevices)) {
      throw WorkloadError("--device: \"" + *overrides.device + "\" is not one of " +
                          Listed(kDevices));
    }
    spec.device = *overrides.device;
    const std::string misfit = WhyStepOptionsDoNotFit(spec);
    if (!misfit.empty()) throw WorkloadError("--device " + spec.device + ": " + misfit);
  }
  if (overrides.deterministic) spec.deterministic = *overrides.deterministic;
  if (overrides.seed) spec.seed = *overrides.seed;
  return spec;
}

}  // namespace advisor
