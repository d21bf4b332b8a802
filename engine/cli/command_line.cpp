#include "engine/cli/command_line.h"

#include <exception>
#include <iostream>

#include "engine/util/watchdog.h"

namespace advisor {

int SplitAtCommand(int argc, char** argv, std::vector<std::string>& command) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      command.assign(argv + i + 1, argv + argc);
      return i;
    }
  }
  return argc;
}

int RunReportingErrors(const std::function<int()>& command) {
  try {
    return command();
  } catch (const StepTimedOut& error) {
    std::cerr << "advisor: " << error.what() << "\n";
    return kStepTimeoutStatus;
  } catch (const std::exception& error) {
    // Every error advisor expects is one line; LibTorch's may not be, so keep the first.
    const std::string message = error.what();
    std::cerr << "advisor: " << message.substr(0, message.find('\n')) << "\n";
    return 1;
  }
}

}  // namespace advisor
