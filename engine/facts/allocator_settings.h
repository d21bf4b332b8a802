// facts.run.allocator: the CUDA caching allocator's settings, parsed from PYTORCH_CUDA_ALLOC_CONF.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace advisor {

// `conf` is the variable's value, "key:value,key:value" (values may be bracketed lists with
// commas, e.g. "roundup_power2_divisions:[256:1,512:2]"). Always returns an object: unset
// settings take PyTorch's defaults (native backend, no expandable segments).
nlohmann::json AllocatorFacts(const std::string& conf);

}  // namespace advisor
