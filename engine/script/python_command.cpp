#include "engine/script/python_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace advisor {
namespace {

std::string BaseName(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsExecutableFile(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The program as execvp would find it; "" when it would not.
std::string Resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) return IsExecutableFile(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (IsExecutableFile(candidate)) return candidate;
  }
  return "";
}

bool NamesPython(const std::string& program) { return BaseName(program).rfind("python", 0) == 0; }

bool ShebangNamesPython(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string line;
  if (!std::getline(file, line) || line.rfind("#!", 0) != 0) return false;
  return line.find("python") != std::string::npos;
}

// `env [-u NAME] [NAME=VALUE ...] PROGRAM ...` runs PROGRAM: the command starts what env starts.
std::size_t ProgramIndex(const std::vector<std::string>& command) {
  std::size_t i = 0;
  while (i < command.size() && BaseName(command[i]) == "env") {
    ++i;
    while (i < command.size() &&
           (command[i].find('=') != std::string::npos || command[i].rfind("-", 0) == 0)) {
      i += command[i] == "-u" || command[i] == "--unset" ? 2 : 1;
    }
  }
  return i;
}

// Why Python's arguments after `program` run no script advisor can follow: `-c CODE` has no file
// to name a line in, and `-` reads the script from standard input, which advisor does not pass on
// (the script's standard input is /dev/null, so that a run never waits on a terminal); "" for a
// script file or a module.
std::string WhyNoScriptFile(const std::vector<std::string>& command, std::size_t program) {
  for (std::size_t i = program + 1; i < command.size(); ++i) {
    const std::string& argument = command[i];
    if (argument == "-c") {
      return "python -c runs code given on the command line: advisor bisect -- runs a script "
             "file or module, whose lines it names (save the code as train.py and run python "
             "train.py)";
    }
    if (argument == "-") {
      return "python - reads its script from standard input, which advisor does not pass on: "
             "save the script as a file and run python FILE";
    }
    // Options that take a value in the next argument; any other option stands alone.
    if (argument == "-W" || argument == "-X" || argument == "--check-hash-based-pycs") {
      ++i;
      continue;
    }
    if (argument.rfind("-", 0) != 0 || argument == "-m") return "";
  }
  return "";
}

}  // namespace

std::string WhyNotPython(const std::vector<std::string>& command) {
  if (command.empty())
    return "no command after --: give the command that trains, e.g. python train.py";
  const std::size_t index = ProgramIndex(command);
  if (index >= command.size()) return command.front() + " runs no program after its settings";
  const std::string& program = command[index];
  const std::string resolved = Resolve(program);
  if (resolved.empty()) return program + ": no such program";
  if (NamesPython(program) || NamesPython(resolved)) return WhyNoScriptFile(command, index);
  if (ShebangNamesPython(resolved)) return "";
  return program + " is not Python: advisor bisect -- runs a command that starts Python "
                   "(python train.py, python -m pkg.train, a launcher such as torchrun)";
}

std::vector<std::string> ScriptPart(const std::vector<std::string>& command) {
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& argument = command[i];
    // A launcher's module (python -m torch.distributed.run ... train.py) is not the script.
    const bool module = argument == "-m" && i + 1 < command.size() &&
                        command[i + 1].rfind("torch.distributed.", 0) != 0;
    const bool script = argument.size() > 3 && argument.compare(argument.size() - 3, 3, ".py") == 0;
    if (module || script) return {command.begin() + static_cast<std::ptrdiff_t>(i), command.end()};
  }
  return command;
}

}  // namespace advisor
