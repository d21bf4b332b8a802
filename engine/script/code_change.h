// A fix that a script can only get by a change to its code (a graph rewrite such as
// gather-to-index or crop-first applies only to a TorchScript model): the change, shown against
// the user's file and line, as a diff of that line where its shape is one advisor knows, else in
// words. The line
// is compared as the report holds it, trimmed: a person applies the change, keeping the
// indentation.
#pragma once

#include <optional>
#include <string>

#include "engine/model/run_report.h"

namespace advisor {

struct CodeChange {
  std::string advice;  // one sentence naming the file and line
  std::string patch;   // "--- file / +++ file / @@ -N +N @@ / -before / +after"; "" when the line's
                       // shape is not recognised
};

// nullopt for a recipe that needs no code change, or a location without its line's text.
std::optional<CodeChange> SuggestCodeChange(const std::string& recipe_id,
                                            const SourceLocation& at);

}  // namespace advisor
