// `advisor bisect --autotest --save-fixed DIR`: the models of the verified rewrites. Each
// rewrite's numerics worker saves its changed model into a staging folder beside DIR (the model
// whose numbers it checked, before its training step); once the autotest has decided, the models
// of the verified fixes stay, with a README.md that says what each file is and how to load it,
// and the staging folder becomes DIR. A run that fails or is interrupted leaves nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/util/scratch_paths.h"

namespace advisor {

class FixedModelsDir {
 public:
  // Checks DIR before any profiling and makes the staging folder in its parent. Throws
  // std::runtime_error with one line for a DIR that exists and is not an empty folder, or whose
  // parent cannot take a new folder.
  explicit FixedModelsDir(const std::string& dir);
  ~FixedModelsDir();  // removes the staging folder unless it was published
  FixedModelsDir(const FixedModelsDir&) = delete;
  FixedModelsDir& operator=(const FixedModelsDir&) = delete;

  const std::string& path() const { return dir_; }
  // Where the numerics worker of candidate `id` ("gather-to-index", "a+b") saves its model.
  std::string StagedModel(const std::string& id) const;

  // Keeps the staged models of the verified fixes, writes README.md, renames the staging folder
  // to DIR and sets each kept fix's saved_model. Throws std::runtime_error (one line) when the
  // folder cannot be written or moved into place; DIR is then left as it was.
  void Publish(RunReport& report);

 private:
  std::string dir_;
  std::string staging_;
  std::unique_ptr<ScratchPath> registration_;  // until published
};

// README.md of the folder: what was run, one row per saved model, how to load it.
std::string FixedModelsReadme(const RunReport& report,
                              const std::vector<const FixResult*>& saved);

}  // namespace advisor
