// The commands that run a model, and so need LibTorch: `advisor bisect` and `advisor candidate`.
// They live in advisor-torch (torch_main.cpp), beside the advisor binary; advisor itself
// (main.cpp) analyses traces and snapshots without loading LibTorch, and hands these commands to
// advisor-torch by exec, so that the user types `advisor bisect ...` as always
// (docs/architecture.md, "Two binaries").
#pragma once

#include <CLI/CLI.hpp>

namespace advisor {

inline constexpr char kBisectDescription[] =
    "Localise the hot spot of a training step, level by level: of a TorchScript model with its "
    "workload (advisor bisect model.pt), or of your own training script, unmodified "
    "(advisor bisect [options] -- python train.py ...)";
inline constexpr char kCandidateDescription[] =
    "Run one autotest candidate and write its result (started by bisect --autotest)";

// Whether the command line's subcommand (its first argument that is not an option) is one of
// advisor-torch's.
bool NamesTorchCommand(int argc, char** argv);

// Lists advisor-torch's commands in `advisor --help`; their options are advisor-torch's to parse.
void ListTorchCommands(CLI::App& app);

// Replaces this process with advisor-torch, beside this binary, on the same arguments: the same
// process id, terminal, signals and exit status the user's shell sees. Returns only where that
// fails, with a status, having said why in one line.
int ExecTorchBinary(char** argv);

}  // namespace advisor
