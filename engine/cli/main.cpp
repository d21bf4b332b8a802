// advisor: finds why a PyTorch training step is slow and proves what fixes it.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/analyze_command.h"
#include "engine/cli/bisect_command.h"
#include "engine/cli/candidate_command.h"
#include "engine/rules/rules_commands.h"
#include "engine/util/interrupts.h"
#include "engine/util/printable_stream.h"
#include "engine/util/watchdog.h"

namespace {

// `advisor bisect [options] -- COMMAND [ARGS...]`: everything after the first "--" is the user's
// command, kept away from advisor's option parser (its flags are the script's, not advisor's).
int SplitAtCommand(int argc, char** argv, std::vector<std::string>& command) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      command.assign(argv + i + 1, argv + argc);
      return i;
    }
  }
  return argc;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> script_command;
  const int options_end = SplitAtCommand(argc, argv, script_command);
  const bool has_command = options_end < argc;
  argc = options_end;

  // Nothing a model or a rule says (a finding's message, a module path, a worker's error) reaches
  // the terminal as an escape sequence or invalid UTF-8.
  const advisor::PrintableStream printable_out(std::cout);
  const advisor::PrintableStream printable_err(std::cerr);
  CLI::App app{"advisor: finds why a PyTorch training step is slow and proves what fixes it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "advisor " ADVISOR_VERSION);

  advisor::BisectCommandOptions bisect;
  bisect.script.command = script_command;
  bisect.script_given = has_command;
  advisor::AddBisectCommand(app, bisect);
  advisor::AnalyzeCommandOptions analyze;
  advisor::AddAnalyzeCommand(app, analyze);
  advisor::CandidateCommandOptions candidate;
  advisor::AddCandidateCommand(app, candidate);

  CLI::App* rules = app.add_subcommand("rules", "List or validate rules")->require_subcommand(1);
  std::vector<std::string> list_dirs;
  bool list_json = false;
  CLI::App* rules_list = rules->add_subcommand("list", "List built-in and user rules");
  rules_list->add_flag("--json", list_json, "machine-readable output");
  rules_list->add_option("--rules", list_dirs, "add the rules in DIR (repeatable)");
  std::string check_path;
  CLI::App* rules_check = rules->add_subcommand("check", "Validate a rule file or directory");
  rules_check->add_option("path", check_path, "a .lua file or a directory of them")->required();

  CLI11_PARSE(app, argc, argv);
  // From here on Ctrl-C, SIGTERM and SIGHUP end the workers and remove the scratch folders too.
  advisor::InstallInterruptCleanup();

  if (has_command && !app.got_subcommand("bisect")) {
    std::cerr << "advisor: only `advisor bisect` takes a command after --\n";
    return 2;
  }
  try {
    if (app.got_subcommand("bisect")) return advisor::RunBisectCommand(bisect);
    if (app.got_subcommand("analyze")) return advisor::RunAnalyzeCommand(analyze);
    if (app.got_subcommand("candidate")) return advisor::RunCandidateCommand(candidate);
    if (rules_list->parsed()) {
      return advisor::RulesListCommand(list_dirs, list_json, std::cout, std::cerr);
    }
    if (rules_check->parsed()) return advisor::RulesCheckCommand(check_path, std::cout, std::cerr);
  } catch (const advisor::StepTimedOut& error) {
    std::cerr << "advisor: " << error.what() << "\n";
    return advisor::kStepTimeoutStatus;
  } catch (const std::exception& error) {
    // Every error advisor expects is one line; LibTorch's may not be, so keep the first.
    const std::string message = error.what();
    std::cerr << "advisor: " << message.substr(0, message.find('\n')) << "\n";
    return 1;
  }
  return 0;
}
