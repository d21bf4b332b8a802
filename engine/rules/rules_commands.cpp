#include "engine/rules/rules_commands.h"

#include <algorithm>
#include <iomanip>

#include <nlohmann/json.hpp>

#include "engine/facts/facts.h"
#include "engine/facts/sample_reports.h"
#include "engine/rules/rule_runner.h"
#include "engine/rules/rule_set.h"
#include "engine/util/printable_text.h"

namespace advisor {
namespace {

void PrintDiagnostics(const std::vector<RuleDiagnostic>& diagnostics, std::ostream& err) {
  for (const RuleDiagnostic& diagnostic : diagnostics)
    err << PrintableLine(diagnostic.ToString()) << '\n';
}

void PrintTable(const std::vector<RuleInfo>& rules, std::ostream& out) {
  std::size_t id_width = 2;
  std::size_t title_width = 5;
  for (const RuleInfo& rule : rules) {
    id_width = std::max(id_width, rule.id.size());
    title_width = std::max(title_width, rule.title.size());
  }
  out << std::left << std::setw(static_cast<int>(id_width)) << "ID" << "  "
      << std::setw(8) << "SOURCE" << "  " << std::setw(static_cast<int>(title_width)) << "TITLE"
      << "  FILE\n";
  for (const RuleInfo& rule : rules) {
    out << std::setw(static_cast<int>(id_width)) << rule.id << "  " << std::setw(8)
        << (rule.builtin ? "built-in" : "user") << "  "
        << std::setw(static_cast<int>(title_width)) << PrintableLine(rule.title) << "  "
        << PrintableLine(rule.file) << '\n';
  }
}

void PrintJson(const std::vector<RuleInfo>& rules, std::ostream& out) {
  nlohmann::json list = nlohmann::json::array();
  for (const RuleInfo& rule : rules) {
    list.push_back({{"id", rule.id},
                    {"title", rule.title},
                    {"description", rule.description},
                    {"file", rule.file},
                    {"builtin", rule.builtin}});
  }
  // A title may hold any bytes the rule file had: replace invalid UTF-8 rather than throw.
  out << nlohmann::json{{"rules", std::move(list)}}.dump(2, ' ', false,
                                                          nlohmann::json::error_handler_t::replace)
      << '\n';
}

}  // namespace

RuleSet LoadRulesForRun(const std::vector<std::string>& user_dirs_or_files, std::ostream& err,
                        std::vector<std::string>& data_quality) {
  std::vector<RuleDiagnostic> errors;
  RuleSet rules = RuleSet::LoadInstalled(user_dirs_or_files, errors);
  for (const RuleDiagnostic& error : errors) {
    const std::string line = "rule left out: " + error.ToString();
    err << "advisor: " << PrintableLine(line) << '\n';
    data_quality.push_back(line);
  }
  return rules;
}

int RulesListCommand(const std::vector<std::string>& user_dirs, bool json, std::ostream& out,
                     std::ostream& err) {
  std::vector<RuleDiagnostic> errors;
  const RuleSet rules = RuleSet::LoadInstalled(user_dirs, errors);
  PrintDiagnostics(errors, err);
  if (json) {
    PrintJson(rules.rules(), out);
  } else {
    PrintTable(rules.rules(), out);
  }
  return errors.empty() ? 0 : 1;
}

int RulesCheckCommand(const std::string& dir_or_file, std::ostream& out, std::ostream& err) {
  std::vector<RuleDiagnostic> errors;
  const RuleSet rules = RuleSet::Load({dir_or_file}, errors);
  PrintDiagnostics(errors, err);
  std::size_t problems = errors.size();

  const struct {
    const char* name;
    RunReport report;
  } samples[] = {{"sample facts with nothing optional measured", SampleReportNothingMeasured()},
                 {"sample facts with everything measured", SampleReportAllMeasured()}};
  for (const auto& sample : samples) {
    const RuleRun run = RunRules(rules, BuildFacts(sample.report));
    for (const std::string& error : run.errors)
      err << PrintableLine(error) << " (on " << sample.name << ")\n";
    problems += run.errors.size();
  }

  for (const RuleInfo& rule : rules.rules())
    out << rule.id << "  " << PrintableLine(rule.file) << '\n';
  out << rules.rules().size() << (rules.rules().size() == 1 ? " rule" : " rules") << " loaded, "
      << problems << (problems == 1 ? " problem" : " problems") << '\n';
  return problems == 0 ? 0 : 1;
}

}  // namespace advisor
