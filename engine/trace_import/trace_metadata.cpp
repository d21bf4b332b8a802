#include "engine/trace_import/trace_metadata.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "engine/trace_import/json_scan.h"

namespace advisor {
namespace {

using nlohmann::json;

// The member `key` when it has type T (numbers in T's range), else `fallback`.
template <typename T>
T Get(const json& object, const char* key, T fallback) {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if constexpr (std::is_arithmetic_v<T>) {
    if (!it->is_number()) return fallback;
    const double value = it->get<double>();
    if (!(value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
          value < static_cast<double>(std::numeric_limits<T>::max()) + 1.0)) {
      return fallback;
    }
    return it->is_number_integer() ? static_cast<T>(it->get<std::int64_t>())
                                   : static_cast<T>(value);
  } else {
    if (!it->is_string()) return fallback;
    return it->get<T>();
  }
}

DeviceProperties ReadDevice(const json& device) {
  DeviceProperties properties;
  properties.id = Get<int>(device, "id", 0);
  properties.name = Get<std::string>(device, "name", "");
  properties.total_memory_bytes = Get<std::int64_t>(device, "totalGlobalMem", 0);
  properties.sm_count = Get<int>(device, "numSms", 0);
  properties.max_threads_per_sm = Get<int>(device, "maxThreadsPerMultiprocessor", 0);
  properties.regs_per_sm = Get<int>(device, "regsPerMultiprocessor", 0);
  properties.shared_memory_per_sm = Get<std::int64_t>(device, "sharedMemPerMultiprocessor", 0);
  properties.warp_size = Get<int>(device, "warpSize", 0);
  properties.max_blocks_per_sm = MaxBlocksPerSm(Get<int>(device, "computeMajor", 0),
                                                Get<int>(device, "computeMinor", 0));
  return properties;
}

// "ranks": [0, 1] or, in some versions, the text "[0, 1]".
std::vector<int> ReadRanks(const json& ranks) {
  json list = ranks;
  if (ranks.is_string()) {
    list = json::parse(ranks.get<std::string>(), nullptr, /*allow_exceptions=*/false);
  }
  std::vector<int> out;
  if (!list.is_array()) return out;
  for (const json& rank : list) {
    if (rank.is_number_integer()) out.push_back(rank.get<int>());
  }
  return out;
}

// More ranks than any job runs: bounds what a world size may claim.
constexpr std::int64_t kMaxWorldSize = 1 << 20;

// distributedInfo's `key`, an integer from `least` to `most`; -1 when absent. Throws
// std::invalid_argument naming the member and the range otherwise.
int ReadRankNumber(const json& info, const char* key, std::int64_t least, std::int64_t most,
                   const std::string& range) {
  const auto it = info.find(key);
  if (it == info.end()) return -1;
  if (!it->is_number_integer() ||
      (it->is_number_unsigned()
           ? it->get<std::uint64_t>() > static_cast<std::uint64_t>(most)
           : it->get<std::int64_t>() < least || it->get<std::int64_t>() > most)) {
    throw std::invalid_argument(std::string("\"distributedInfo\" ") + key + " " + it->dump() +
                                " is not " + range);
  }
  return static_cast<int>(it->get<std::int64_t>());
}

DistributedInfo ReadDistributed(const json& info) {
  DistributedInfo distributed;
  distributed.backend = Get<std::string>(info, "backend", "");
  distributed.world_size = ReadRankNumber(info, "world_size", 1, kMaxWorldSize,
                                          "an integer from 1 to " + std::to_string(kMaxWorldSize));
  const std::int64_t last_rank =
      distributed.world_size > 0 ? distributed.world_size - 1 : kMaxWorldSize - 1;
  distributed.rank =
      ReadRankNumber(info, "rank", 0, last_rank,
                     "an integer from 0 to " + std::to_string(last_rank) +
                         (distributed.world_size > 0
                              ? " (world_size " + std::to_string(distributed.world_size) + ")"
                              : std::string()));
  if (auto groups = info.find("pg_config"); groups != info.end() && groups->is_array()) {
    for (const json& group : *groups) {
      if (!group.is_object()) continue;
      ProcessGroupConfig config;
      config.name = Get<std::string>(group, "pg_name", "");
      config.description = Get<std::string>(group, "pg_desc", "");
      if (auto ranks = group.find("ranks"); ranks != group.end()) config.ranks = ReadRanks(*ranks);
      distributed.groups.push_back(std::move(config));
    }
  }
  return distributed;
}

}  // namespace

int MaxBlocksPerSm(int major, int minor) {
  const int capability = major * 10 + minor;
  switch (capability) {
    case 70: case 72: case 80: case 90: return 32;
    case 75: case 86: case 87: return 16;
    case 89: return 24;
    default: return 0;
  }
}

void ReadMetadataMember(const std::string& key, std::string_view text, std::uint64_t offset,
                        TraceMetadata& metadata, std::vector<std::string>& problems) {
  const auto problem = [&](const std::string& what) {
    problems.push_back("byte " + std::to_string(offset) + ": \"" + key + "\" " + what +
                       "; it is ignored");
  };
  // The nesting limit keeps the JSON library's recursion bounded.
  const char* end = text.data() + text.size();
  if (json_scan::SkipValue(text.data(), end) != end) {
    problem("is not well-formed JSON or nests too deep");
    return;
  }
  const json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    problem("is not well-formed JSON");
    return;
  }
  if (key == "baseTimeNanoseconds") {
    if (!value.is_number_integer()) return problem("is not an integer");
    metadata.base_time_ns = value.get<std::int64_t>();
  } else if (key == "deviceProperties") {
    if (!value.is_array()) return problem("is not an array");
    for (const json& device : value) {
      if (device.is_object()) metadata.devices.push_back(ReadDevice(device));
    }
  } else if (key == "distributedInfo") {
    if (!value.is_object()) return problem("is not an object");
    try {
      metadata.distributed = ReadDistributed(value);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument("byte " + std::to_string(offset) + ": " + error.what());
    }
  } else if (key == "otherData") {
    // Kineto writes none; advisor's trace.json names itself here. Anything else in it is ignored.
    if (!value.is_object()) return problem("is not an object");
    metadata.generator = Get<std::string>(value, "generator", "");
  }
}

}  // namespace advisor
