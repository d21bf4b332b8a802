#include "engine/cli/torch_commands.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

namespace advisor {
namespace {

namespace fs = std::filesystem;

constexpr char kTorchBinaryName[] = "advisor-torch";

bool IsTorchCommand(const std::string& name) { return name == "bisect" || name == "candidate"; }

}  // namespace

bool NamesTorchCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--") return false;
    if (!argument.empty() && argument.front() == '-') continue;  // --help, --version
    return IsTorchCommand(argument);
  }
  return false;
}

void ListTorchCommands(CLI::App& app) {
  app.add_subcommand("bisect", kBisectDescription);
  app.add_subcommand("candidate", kCandidateDescription);
}

int ExecTorchBinary(char** argv) {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) {
    std::cerr << "advisor: cannot find its own binary (/proc/self/exe: " << error.message()
              << ") to start " << kTorchBinaryName << "\n";
    return 127;
  }
  const std::string torch_binary = (self.parent_path() / kTorchBinaryName).string();
  // argv[0] stays as the user typed it: advisor-torch's help and messages say "advisor".
  execv(torch_binary.c_str(), argv);
  std::cerr << "advisor: cannot run " << torch_binary << " (" << std::strerror(errno)
            << "): `advisor bisect` and `advisor candidate` need it beside advisor\n";
  return 127;
}

}  // namespace advisor
