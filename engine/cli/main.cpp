// advisor: finds why a PyTorch training step is slow and proves what fixes it. This binary
// analyses traces and snapshots and checks rules without LibTorch; the commands that run a model
// are advisor-torch's (torch_commands.h), which it execs for them.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/analyze_command.h"
#include "engine/cli/command_line.h"
#include "engine/cli/diff_command.h"
#include "engine/cli/torch_commands.h"
#include "engine/rules/rules_commands.h"
#include "engine/util/interrupts.h"
#include "engine/util/printable_stream.h"

int main(int argc, char** argv) {
  if (advisor::NamesTorchCommand(argc, argv)) return advisor::ExecTorchBinary(argv);

  std::vector<std::string> script_command;
  const int options_end = advisor::SplitAtCommand(argc, argv, script_command);
  if (options_end < argc) {
    std::cerr << "advisor: only `advisor bisect` takes a command after --\n";
    return 2;
  }

  // Nothing a trace or a rule says (a finding's message, a module path) reaches the terminal as an
  // escape sequence or invalid UTF-8.
  const advisor::PrintableStream printable_out(std::cout);
  const advisor::PrintableStream printable_err(std::cerr);
  CLI::App app{"advisor: finds why a PyTorch training step is slow and proves what fixes it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "advisor " ADVISOR_VERSION);

  advisor::ListTorchCommands(app);
  advisor::AnalyzeCommandOptions analyze;
  advisor::AddAnalyzeCommand(app, analyze);
  advisor::DiffCommandOptions diff;
  advisor::AddDiffCommand(app, diff);

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
  // From here on Ctrl-C, SIGTERM and SIGHUP remove the scratch folders too.
  advisor::InstallInterruptCleanup();

  return advisor::RunReportingErrors([&] {
    if (app.got_subcommand("analyze")) return advisor::RunAnalyzeCommand(analyze);
    if (app.got_subcommand("diff")) return advisor::RunDiffCommand(diff);
    if (rules_list->parsed()) {
      return advisor::RulesListCommand(list_dirs, list_json, std::cout, std::cerr);
    }
    if (rules_check->parsed()) return advisor::RulesCheckCommand(check_path, std::cout, std::cerr);
    return 0;
  });
}
