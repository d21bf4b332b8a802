#include "engine/workload/workload_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <utility>

#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"

namespace advisor {
namespace {

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

template <std::size_t N>
std::vector<std::string> Names(const std::array<const char*, N>& allowed) {
  return {allowed.begin(), allowed.end()};
}

TensorSpec ReadTensor(const JsonField& tensor) {
  tensor.AllowOnly({"shape", "dtype", "init", "low", "high"});
  TensorSpec spec;
  const JsonField shape = tensor.Required("shape");
  for (const JsonField& dim : shape.Elements(1)) {
    spec.shape.push_back(dim.Integer(1));
  }
  const std::string too_large = WhyTooLarge(spec.shape);
  if (!too_large.empty()) shape.Fail("is too large: " + too_large);
  if (auto dtype = tensor.Optional("dtype")) spec.dtype = dtype->Choice(Names(kDtypes));
  const bool integral = spec.dtype == "int64" || spec.dtype == "int32";
  spec.init = integral ? "randint" : "randn";
  const std::optional<JsonField> init = tensor.Optional("init");
  if (init) spec.init = init->Choice(Names(kInits));
  const std::optional<JsonField> low = tensor.Optional("low");
  const std::optional<JsonField> high = tensor.Optional("high");
  if (low) spec.low = low->Integer();
  if (high) spec.high = high->Integer();
  if (spec.init == "randint" && spec.high <= spec.low) {
    tensor.Fail("with init \"randint\" needs \"high\" greater than \"low\" (" +
                std::to_string(spec.low) + ")");
  }
  if (integral && (spec.init == "randn" || spec.init == "rand")) {
    init->Fail("must not be \"" + spec.init + "\" for the integer dtype " + spec.dtype);
  }
  if (spec.init != "randint" && (low || high)) {
    tensor.Fail("takes \"low\" and \"high\" only with init \"randint\"");
  }
  const auto [lowest, highest] = RandintRange(spec.dtype);
  if (spec.init == "randint" && (spec.low < lowest || spec.high > highest)) {
    tensor.Fail("with init \"randint\" for " + spec.dtype + " needs " + std::to_string(lowest) +
                " <= low < high <= " + std::to_string(highest) + ", got low " +
                std::to_string(spec.low) + ", high " + std::to_string(spec.high));
  }
  return spec;
}

OptimizerSpec ReadOptimizer(const JsonField& optimizer) {
  OptimizerSpec spec;
  spec.name = optimizer.Required("name").Choice(Names(kOptimizers));
  // The keys each optimizer takes, as torch.optim names them (scripts/advisor_export.py agrees);
  // "foreach" on AdamW gets the step options' own message.
  if (spec.name == "sgd") {
    optimizer.AllowOnly({"name", "lr", "momentum", "weight_decay", "foreach"});
  } else {
    optimizer.AllowOnly({"name", "lr", "betas", "weight_decay", "foreach"});
  }
  if (auto lr = optimizer.Optional("lr")) spec.lr = lr->Number(NumberRange::Above(0));
  if (auto momentum = optimizer.Optional("momentum")) {
    spec.momentum = momentum->Number(NumberRange::AtLeast(0));
  }
  if (auto decay = optimizer.Optional("weight_decay")) {
    spec.weight_decay = decay->Number(NumberRange::AtLeast(0));
  }
  if (auto betas = optimizer.Optional("betas")) {
    const std::vector<JsonField> pair = betas->Elements(2, 2);
    // Each in [0, 1): torch.optim.AdamW's own check.
    spec.beta1 = pair[0].Number(NumberRange::FromBelow(0, 1));
    spec.beta2 = pair[1].Number(NumberRange::FromBelow(0, 1));
  }
  if (auto foreach = optimizer.Optional("foreach")) spec.foreach = foreach->Bool();
  return spec;
}

WorkloadSpec ReadWorkload(const JsonField& root) {
  root.AllowOnly({"inputs", "target", "loss", "optimizer", "deterministic", "seed", "device",
                  "description", "source_model", "input_stage", "autocast", "cuda_graphs"});
  WorkloadSpec spec;
  spec.source = root.Source();
  const JsonField inputs = root.Required("inputs");
  for (const JsonField& input : inputs.Elements(1)) spec.inputs.push_back(ReadTensor(input));
  const JsonField target = root.Required("target");
  spec.target = ReadTensor(target);
  for (const TensorSpec& tensor : spec.inputs) {
    if (tensor.shape.front() != spec.inputs.front().shape.front()) {
      inputs.Fail("must all have the same dim 0 (the batch)");
    }
  }
  if (spec.target.shape.front() != spec.batch_size()) {
    const JsonField shape = target.Required("shape");
    shape.Element(0).Fail("must equal the inputs' batch size " +
                          std::to_string(spec.batch_size()));
  }
  spec.loss = root.Required("loss").Choice(Names(kLosses));
  spec.optimizer = ReadOptimizer(root.Required("optimizer"));
  if (auto deterministic = root.Optional("deterministic")) {
    spec.deterministic = deterministic->Bool();
  }
  if (auto seed = root.Optional("seed")) spec.seed = static_cast<std::uint64_t>(seed->Integer(0));
  if (auto device = root.Optional("device")) spec.device = device->Choice(Names(kDevices));
  if (auto description = root.Optional("description")) spec.description = description->String();
  if (auto stage = root.Optional("input_stage")) spec.input_stage = ParseInputStage(*stage);
  if (auto autocast = root.Optional("autocast")) {
    spec.autocast = autocast->Choice(Names(kAutocastDtypes));
  }
  if (auto graphs = root.Optional("cuda_graphs")) spec.cuda_graphs = graphs->Bool();
  // "autocast: needs ...": the field the misfit starts with is the one to name.
  const std::string misfit = WhyStepOptionsDoNotFit(spec);
  if (!misfit.empty()) {
    const std::size_t colon = misfit.find(": ");
    throw JsonInputError(spec.source + ": " + FieldName(misfit.substr(0, colon)) +
                         " does not fit the workload: " + misfit.substr(colon + 2));
  }
  return spec;
}

std::vector<const TensorSpec*> TensorsOf(const WorkloadSpec& spec) {
  std::vector<const TensorSpec*> tensors;
  for (const TensorSpec& input : spec.inputs) tensors.push_back(&input);
  tensors.push_back(&spec.target);
  return tensors;
}

}  // namespace

WorkloadSpec ParseWorkload(const std::string& json_text, const std::string& source) {
  return RethrowAs<WorkloadError>([&] {
    const nlohmann::json document = ParseJsonDocument(json_text, source);
    return ReadWorkload(JsonField(document, source));
  });
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
