// advisor-torch: the commands of advisor that run a model, and so load LibTorch (`advisor bisect`,
// `advisor candidate`). The advisor binary (main.cpp) execs this one for them, with the user's
// arguments; argv[0] is still "advisor".
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/bisect_command.h"
#include "engine/cli/candidate_command.h"
#include "engine/cli/command_line.h"
#include "engine/util/interrupts.h"
#include "engine/util/printable_stream.h"

int main(int argc, char** argv) {
  std::vector<std::string> script_command;
  const int options_end = advisor::SplitAtCommand(argc, argv, script_command);
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
  advisor::CandidateCommandOptions candidate;
  advisor::AddCandidateCommand(app, candidate);

  CLI11_PARSE(app, argc, argv);
  // From here on Ctrl-C, SIGTERM and SIGHUP end the workers and remove the scratch folders too.
  advisor::InstallInterruptCleanup();

  if (has_command && !app.got_subcommand("bisect")) {
    std::cerr << "advisor: only `advisor bisect` takes a command after --\n";
    return 2;
  }
  return advisor::RunReportingErrors([&] {
    if (app.got_subcommand("bisect")) return advisor::RunBisectCommand(bisect);
    return advisor::RunCandidateCommand(candidate);
  });
}
