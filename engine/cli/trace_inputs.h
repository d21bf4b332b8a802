// The traces `advisor analyze PATH...` reads: local files and folders (trace_files.h), and s3://
// URLs of an object or of a prefix holding one trace per rank. An object is copied to a private
// local folder as it arrives and read from there: the reader's fast path maps a file and parses
// its chunks in parallel, which a network stream cannot give; the copy costs disk, not memory, and
// goes once read.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/object_store/object_store.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/util/scratch_paths.h"

namespace advisor {

struct TraceInput {
  std::string name;                 // the path or the URL, as progress and errors say it
  std::optional<ObjectUrl> object;  // set for an object in a store
};

class TraceInputs {
 public:
  // Lists every path now, so that a missing file, bucket or prefix, refused credentials or an
  // empty folder end the run before gigabytes are read. Throws std::runtime_error, one line.
  explicit TraceInputs(const std::vector<std::string>& paths);

  const std::vector<TraceInput>& inputs() const { return inputs_; }

  // Reads one input; for an object, errors name its URL and the store's path is the URL.
  TraceStore Read(const TraceInput& input, const ReadOptions& options);

 private:
  std::vector<TraceInput> inputs_;
  std::unique_ptr<ObjectStore> store_;      // where some input is an object
  std::unique_ptr<PrivateTempDir> copies_;  // made at the first object read
};

}  // namespace advisor
