// What both of advisor's binaries do with their command line: `advisor` (main.cpp, without
// LibTorch) and `advisor-torch` (torch_main.cpp, which it execs for the commands that run a model).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace advisor {

// `advisor bisect [options] -- COMMAND [ARGS...]`: everything after the first "--" is the user's
// command, kept away from advisor's option parser (its flags are the script's, not advisor's).
// Returns the index of that "--", or argc where there is none.
int SplitAtCommand(int argc, char** argv, std::vector<std::string>& command);

// Runs a parsed command: its status, or, where it throws, one line on stderr and a non-zero
// status (kStepTimeoutStatus for a training step that never returned).
int RunReportingErrors(const std::function<int()>& command);

}  // namespace advisor
