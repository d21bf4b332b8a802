// Runs the advisor binary as a user would, capturing its exit status, stdout and stderr.
#pragma once

#include <string>

namespace advisor::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// An empty folder `name` under `root`, whatever an earlier run left there.
std::string FreshFolder(const std::string& root, const std::string& name);

// Runs `command` through the shell; its output goes to files under `scratch_dir`.
CommandResult RunCommand(const std::string& command, const std::string& scratch_dir);

std::string ReadFile(const std::string& path);

}  // namespace advisor::testing
