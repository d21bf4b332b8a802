// The top-level members of a Kineto trace that describe the run rather than events:
// deviceProperties (the GPUs), distributedInfo (rank, world size, process groups) and
// baseTimeNanoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/trace_import/event_store.h"

namespace advisor {

// Reads the member `key`'s JSON value `text` (which starts `offset` bytes into the file) into
// `metadata`. A value that is not what Kineto writes leaves the metadata as it was and adds one
// "byte N: ..." line to `problems`. A distributedInfo whose rank or world size is out of range
// (a rank below 0 or at least the world size) throws std::invalid_argument ("byte N: ..."): the
// trace would be merged as another rank's, or as no rank's.
void ReadMetadataMember(const std::string& key, std::string_view text, std::uint64_t offset,
                        TraceMetadata& metadata, std::vector<std::string>& problems);

// Resident blocks per SM by compute capability (CUDA C Programming Guide, "Technical
// Specifications per Compute Capability"); 0 for a capability not in the table.
int MaxBlocksPerSm(int major, int minor);

}  // namespace advisor
