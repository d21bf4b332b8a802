// A torch.cuda.memory._dump_snapshot file into a MemorySnapshot: the pickle read by the plain
// reader (engine/pickle_input), then its layout checked field by field. Layouts of torch 2.0 on
// are read: blocks without "address" (placed one after another from their segment's), entries
// without "time_us", snapshots without "external_annotations".
#pragma once

#include <stdexcept>
#include <string>

#include "engine/memory_snapshot/snapshot.h"
#include "engine/pickle_input/pickle_document.h"
#include "engine/pickle_input/pickle_limits.h"

namespace advisor {

// One line naming the file and the field: "snap.pickle: 'device_traces[0][1].size' must be an
// int, got str". (A file that is no plain pickle raises PickleError, also one line.)
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

MemorySnapshot SnapshotOfDocument(const PickleDocument& document, const std::string& path);

MemorySnapshot ReadMemorySnapshot(const std::string& path, const PickleLimits& limits = {});

// A file name `advisor analyze` reads as a snapshot: .pickle, as _dump_snapshot's examples name
// them (and .pkl).
bool IsSnapshotFileName(const std::string& name);

}  // namespace advisor
