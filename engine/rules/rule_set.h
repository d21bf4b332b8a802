// The rules one run uses: the built-in library installed beside the binary and the user's own,
// each file read, run and validated once (see rule_file.h for the stages).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/rules/rule_diagnostic.h"
#include "engine/rules/rule_file.h"

namespace advisor {

struct RuleInfo {
  std::string id;
  std::string title;
  std::string file;  // as found, e.g. "/opt/advisor/share/advisor/rules/gather_backward.lua"
  bool builtin = false;
  std::string description;  // "" when the rule has none
  int line = 0;             // the return statement of the rule table
};

class RuleSet {
 public:
  // Loads each named file and every *.lua file directly inside each named folder (by file name
  // order). A file with any problem is left out and described in `errors`; the others load. A
  // rule whose id an earlier rule already uses is a problem too.
  static RuleSet Load(const std::vector<std::string>& dirs_or_files,
                      std::vector<RuleDiagnostic>& errors);

  // The built-in rules, found with FindDataDir("rules"), then the user's. A missing built-in
  // folder is reported in `errors`.
  static RuleSet LoadInstalled(const std::vector<std::string>& user_dirs_or_files,
                               std::vector<RuleDiagnostic>& errors);

  const std::vector<RuleInfo>& rules() const { return rules_; }

  // The text of rules()[index] as it was validated; runs use it rather than re-reading the file.
  const RuleSource& source(std::size_t index) const { return sources_[index]; }

 private:
  void AddPath(const std::string& dir_or_file, bool builtin, std::vector<RuleDiagnostic>& errors);
  void AddFile(const std::string& file, bool builtin, std::vector<RuleDiagnostic>& errors);

  std::vector<RuleInfo> rules_;
  std::vector<RuleSource> sources_;  // parallel to rules_
};

}  // namespace advisor
