// Where a TorchScript source range lies in the model author's code: the file, line and text of
// the line, from the archive's debug info where it has it.
#pragma once

#include <torch/csrc/jit/frontend/source_range.h>

#include <optional>
#include <string>

#include "engine/model/finding.h"

namespace advisor {

// Archives saved with debug info map the serialized code back to the model's Python source;
// without it, the serialized TorchScript code (code/__torch__/...) is the best there is.
// nullopt for a range with no source.
std::optional<SourceLocation> LocationOf(torch::jit::SourceRange range);

// torch's own Python (torch/nn/modules/linear.py, torch/functional.py), as installed or as
// serialized into the archive: not the model author's code.
bool InTorchPackage(const std::string& file);

}  // namespace advisor
