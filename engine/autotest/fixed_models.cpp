#include "engine/autotest/fixed_models.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/autotest/ab_benchmark.h"
#include "engine/util/printf.h"
#include "engine/util/remove_tree.h"

namespace advisor {
namespace {

constexpr char kOption[] = "--save-fixed ";

std::string FileName(const std::string& id) { return id + ".pt"; }

// Whether the folder holds anything but "." and "..".
bool HoldsEntries(const std::string& dir) {
  DIR* stream = opendir(dir.c_str());
  if (stream == nullptr) return true;  // unreadable: not known to be empty
  bool entries = false;
  while (const dirent* entry = readdir(stream)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") {
      entries = true;
      break;
    }
  }
  closedir(stream);
  return entries;
}

bool IsFile(const std::string& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string Speedup(const FixResult& fix) {
  std::string text = Printf("%.2fx", fix.speedup);
  if (fix.speedup_ci_low && fix.speedup_ci_high) {
    text += Printf(" (95%% interval %.2f-%.2fx, %d rounds)", *fix.speedup_ci_low,
                   *fix.speedup_ci_high, fix.rounds);
  }
  return text;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

FixedModelsDir::FixedModelsDir(const std::string& dir) : dir_(dir) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  if (dir_.empty()) throw std::runtime_error(std::string(kOption) + "needs a folder");
  struct stat info {};
  if (lstat(dir_.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) {
      throw std::runtime_error(kOption + dir_ + ": exists and is not a folder");
    }
    if (HoldsEntries(dir_)) {
      throw std::runtime_error(kOption + dir_ +
                               ": exists and is not empty; give a new or an empty folder");
    }
  }
  const std::size_t slash = dir_.rfind('/');
  const std::string parent =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : dir_.substr(0, slash));
  std::string pattern = parent + "/.advisor-fixed-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error(kOption + dir_ + ": cannot make a folder in " + parent + ": " +
                             std::strerror(errno));
  }
  staging_ = pattern;
  registration_ = std::make_unique<ScratchPath>(staging_, ScratchPath::Kind::kTree);
}

FixedModelsDir::~FixedModelsDir() {
  if (registration_) RemoveTree(staging_);
}

std::string FixedModelsDir::StagedModel(const std::string& id) const {
  return staging_ + "/" + FileName(id);
}

void FixedModelsDir::Publish(RunReport& report) {
  std::vector<FixResult*> kept;
  for (FixResult& fix : report.fixes) {
    if (fix.status == fix_status::kVerified && IsFile(StagedModel(fix.recipe))) {
      kept.push_back(&fix);
    }
  }
  // The models of the candidates that were not verified go.
  if (DIR* stream = opendir(staging_.c_str())) {
    std::vector<std::string> names;
    while (const dirent* entry = readdir(stream)) names.push_back(entry->d_name);
    closedir(stream);
    for (const std::string& name : names) {
      if (name == "." || name == "..") continue;
      bool keep = false;
      for (const FixResult* fix : kept) keep = keep || name == FileName(fix->recipe);
      if (!keep) std::remove((staging_ + "/" + name).c_str());
    }
  }
  std::vector<const FixResult*> saved(kept.begin(), kept.end());
  const std::string readme = staging_ + "/README.md";
  std::ofstream(readme) << FixedModelsReadme(report, saved);
  if (!IsFile(readme)) throw std::runtime_error(kOption + dir_ + ": cannot write its README.md");
  // The folder mkdtemp made is private; the published one gets the user's usual permissions.
  const mode_t mask = umask(0);
  umask(mask);
  chmod(staging_.c_str(), 0777 & ~mask);
  // rename() replaces DIR where it is an empty folder, and fails where it is not any more.
  if (std::rename(staging_.c_str(), dir_.c_str()) != 0) {
    throw std::runtime_error(kOption + dir_ + ": cannot put the fixed models in place: " +
                             std::strerror(errno));
  }
  registration_.reset();
  for (FixResult* fix : kept) fix->saved_model = dir_ + "/" + FileName(fix->recipe);
}

std::string FixedModelsReadme(const RunReport& report,
                              const std::vector<const FixResult*>& saved) {
  std::ostringstream out;
  out << "# Models advisor fixed\n\n"
      << "`advisor bisect " << report.run.model << " --autotest --save-fixed` saved here the "
      << "model of each TorchScript rewrite it verified (numerics within tolerance, and faster in "
      << "A/B rounds against the model as given), on " << report.run.device << " with torch "
      << report.run.torch_version << ". Each file is the original model with the rewrite "
      << "applied to its graphs, weights as given (untrained), its workload "
      << "(`advisor/workload.json`) inside. report.json's `fixes[].code_changes` show the code "
      << "each rewrite changed.\n\n";
  if (saved.empty()) {
    out << "No rewrite was verified in this run, so no model is saved: see the report's "
           "`fixes` for what was tried and why each was not verified.\n";
    return out.str();
  }
  out << "| file | recipes | speedup | changed modules |\n| --- | --- | --- | --- |\n";
  for (const FixResult* fix : saved) {
    out << "| `" << FileName(fix->recipe) << "` | " << fix->recipe << " | " << Speedup(*fix)
        << " | " << Joined(fix->sites) << " |\n";
  }
  const std::string example = FileName(saved.front()->recipe);
  out << "\nA combination (`a+b`) holds what its recipes change in the model; environment "
         "variables and workload settings of its knob recipes are not in the file: set them as "
         "the recipe says (recipes/<id>.json).\n\n"
      << "Load one as the original:\n\n"
      << "```python\nimport torch\nmodel = torch.jit.load(\"" << example
      << "\")\nprint(model.code)\n```\n\n"
      << "or measure it again: `advisor bisect " << example << "`.\n";
  return out.str();
}

}  // namespace advisor
