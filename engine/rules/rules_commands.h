// The bodies of `advisor rules list` and `advisor rules check`, kept out of main so that they
// test without a process. Both print problems to `err` as "file:line: message", one per line,
// and return the process exit status. Also the rule loading of a run (`bisect --rules`).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/rules/rule_set.h"

namespace advisor {

// The rules a run uses: the built-in ones and the user's. A file with a problem is left out and
// the others load (docs/rules.md): every problem is printed to `err` as "advisor: rule left out:
// file:line: message" and appended to `data_quality` for the report, and the run goes on.
RuleSet LoadRulesForRun(const std::vector<std::string>& user_dirs_or_files, std::ostream& err,
                        std::vector<std::string>& data_quality);

// `advisor rules list [--json] [--rules DIR]...`: the built-in rules and the user's, with id,
// title and source file. Returns 1 when any rule file has a problem (the others are listed).
int RulesListCommand(const std::vector<std::string>& user_dirs, bool json, std::ostream& out,
                     std::ostream& err);

// `advisor rules check DIR|FILE`: loads the rules, then runs each on two sample fact tables (one
// where nothing optional was measured, one where everything was) to catch rules that fail on a
// missing fact or return malformed findings. Returns 1 on any problem.
int RulesCheckCommand(const std::string& dir_or_file, std::ostream& out, std::ostream& err);

}  // namespace advisor
