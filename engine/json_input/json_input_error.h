// The error of every reader of untrusted JSON (workload.json, recipes, worker results, probe
// messages, node summaries): one line that names the source and, where one is to blame, the field,
// in the house wording that json_field.h documents.
#pragma once

#include <stdexcept>

namespace advisor {

class JsonInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs `read` and rethrows a JsonInputError as `Error`, the error type a reader's callers catch
// (WorkloadError, RecipeError, ...), with the same line.
template <class Error, class Read>
auto RethrowAs(Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const JsonInputError& error) {
    throw Error(error.what());
  }
}

}  // namespace advisor
