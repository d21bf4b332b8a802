#include "engine/cli/trace_inputs.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "engine/trace_analysis/trace_files.h"
#include "engine/trace_import/trace_error.h"
#include "engine/util/printable_text.h"

namespace advisor {
namespace {

// Where the copies go: $TMPDIR where set; else /var/tmp, which stays on disk, rather than /tmp,
// which systemd and Debian 13 mount in memory, where a copy would hold the trace in memory after
// all ("" where /var/tmp cannot be written: PrivateTempDir's /tmp).
std::string CopiesRoot() {
  const char* dir = std::getenv("TMPDIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return ::access("/var/tmp", W_OK | X_OK) == 0 ? "/var/tmp" : "";
}

}  // namespace

TraceInputs::TraceInputs(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (!IsObjectUrl(path)) {
      for (const std::string& file : TraceFilesOf({path})) inputs_.push_back({file, std::nullopt});
      continue;
    }
    const ObjectUrl url = ParseObjectUrl(path);
    if (!store_) {
      try {
        store_ = OpenS3Store();
      } catch (const std::exception& error) {
        throw std::runtime_error(PrintableLine(path) + ": " + error.what());
      }
    }
    if (!url.IsPrefix()) {
      inputs_.push_back({url.ToString(), url});
      continue;
    }
    std::size_t traces = 0;
    for (const std::string& name : store_->List(url)) {
      if (!IsTraceFileName(name)) continue;
      const ObjectUrl object = url.Child(name);
      inputs_.push_back({object.ToString(), object});
      ++traces;
    }
    if (traces == 0) {
      throw std::runtime_error(url.ToString() +
                               ": no trace (.json, .json.gz) directly under this prefix");
    }
  }
}

TraceStore TraceInputs::Read(const TraceInput& input, const ReadOptions& options) {
  if (!input.object) return ReadTrace(input.name, options);
  if (!copies_) copies_ = std::make_unique<PrivateTempDir>("advisor-traces-", CopiesRoot());
  const std::string copy = copies_->path() + "/trace";
  struct RemoveCopy {
    const std::string& path;
    ~RemoveCopy() { std::remove(path.c_str()); }
  } remove_copy{copy};
  store_->Download(*input.object, copy);
  try {
    TraceStore store = ReadTrace(copy, options);
    store.path = input.name;
    return store;
  } catch (const TraceError& error) {
    // A trace error's line starts with the path it was given: the copy's, which says nothing.
    const std::string line = error.what();
    throw std::runtime_error(line.rfind(copy, 0) == 0 ? input.name + line.substr(copy.size())
                                                      : input.name + ": " + line);
  }
}

}  // namespace advisor
