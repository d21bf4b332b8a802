// One environment variable set for a test's scope and put back as it was when the scope ends
// (unset where it was unset), so that a failed assertion cannot leave it changed for the tests
// that follow in the same process.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>
#include <utility>

namespace advisor::testing {

class ScopedEnvironment {
 public:
  ScopedEnvironment(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* saved = std::getenv(name_.c_str()); saved != nullptr) saved_ = saved;
    setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (saved_) {
      setenv(name_.c_str(), saved_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

}  // namespace advisor::testing
