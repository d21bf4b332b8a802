#include "engine/rules/rule_set.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <system_error>

#include "engine/util/data_dir.h"
#include "engine/util/file_kind.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;

// Every *.lua entry but folders: one that is no readable file (a symbolic link loop, a FIFO) is
// meant as a rule, and reading it reports why it cannot be one.
std::vector<std::string> LuaFilesIn(const fs::path& folder, std::error_code& error) {
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    std::error_code ignored;
    if (entry.path().extension() == ".lua" && !entry.is_directory(ignored)) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

RuleSet RuleSet::Load(const std::vector<std::string>& dirs_or_files,
                      std::vector<RuleDiagnostic>& errors) {
  RuleSet set;
  for (const std::string& path : dirs_or_files) set.AddPath(path, /*builtin=*/false, errors);
  return set;
}

RuleSet RuleSet::LoadInstalled(const std::vector<std::string>& user_dirs_or_files,
                               std::vector<RuleDiagnostic>& errors) {
  RuleSet set;
  const std::string builtin_dir = FindDataDir("rules");
  if (builtin_dir.empty()) {
    errors.push_back({"", 0,
                      "built-in rules not found: expected a rules/ folder beside the advisor "
                      "binary or in ../share/advisor, or set ADVISOR_RULES_DIR"});
  } else {
    set.AddPath(builtin_dir, /*builtin=*/true, errors);
  }
  for (const std::string& path : user_dirs_or_files) set.AddPath(path, /*builtin=*/false, errors);
  return set;
}

void RuleSet::AddPath(const std::string& dir_or_file, bool builtin,
                      std::vector<RuleDiagnostic>& errors) {
  std::error_code error;
  if (!fs::exists(dir_or_file, error)) {
    const std::string why = WhyNotARegularFile(dir_or_file);  // a loop is not "no such file"
    errors.push_back({dir_or_file, 0, why == "no such file" ? "no such file or folder" : why});
    return;
  }
  if (!fs::is_directory(dir_or_file, error)) {
    AddFile(dir_or_file, builtin, errors);
    return;
  }
  const std::vector<std::string> files = LuaFilesIn(dir_or_file, error);
  if (error) {
    errors.push_back({dir_or_file, 0, "cannot list the folder: " + error.message()});
  } else if (files.empty()) {
    errors.push_back({dir_or_file, 0, "no .lua rule files in this folder"});
  }
  for (const std::string& file : files) AddFile(file, builtin, errors);
}

void RuleSet::AddFile(const std::string& file, bool builtin, std::vector<RuleDiagnostic>& errors) {
  std::optional<RuleSource> source = ReadRuleFile(file, errors);
  if (!source) return;
  std::optional<RuleHeader> header;
  try {
    LuaSandbox sandbox{SandboxLimits{}};
    header = EvaluateRuleFile(sandbox, *source, errors);
  } catch (const std::exception& error) {  // the sandbox could not be created
    errors.push_back({file, 0, error.what()});
  }
  if (!header) return;
  const auto same_id = std::find_if(rules_.begin(), rules_.end(),
                                    [&](const RuleInfo& rule) { return rule.id == header->id; });
  if (same_id != rules_.end()) {
    errors.push_back({file, header->line,
                      "duplicate id '" + header->id + "': " + same_id->file + ":" +
                          std::to_string(same_id->line) + " already defines it"});
    return;
  }
  rules_.push_back({header->id, header->title, file, builtin, header->description, header->line});
  sources_.push_back(std::move(*source));
}

}  // namespace advisor
