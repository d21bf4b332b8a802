// A fix that a script can only get by a change to its code (a graph rewrite such as
// gather-to-index, crop-first or sdpa-attention applies only to a TorchScript model): the
// change, shown against the user's file and line, as the lines to replace and what replaces them
// where the code's shape is one advisor knows, else in words. The lines are compared as the
// report holds them, trimmed: a person applies the change, keeping the indentation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/door.h"
#include "engine/model/finding.h"
#include "engine/script/source_block.h"

namespace advisor {

// nullopt for a recipe that needs no code change, or a location without its line's text.
// `function`: the lines of the function holding `at` where they could be read (the attention's
// mask and dropout sit on lines around the finding's), else nullptr.
std::optional<CodeChange> SuggestCodeChange(const std::string& recipe_id, const SourceLocation& at,
                                            const SourceBlock* function = nullptr);

// The change as a unified diff of `file` ("--- file / +++ file / @@ -N +N @@ / -before /
// +after"); "" for a change in words only.
std::string Patch(const std::string& file, const CodeChange& change);

// Each finding's change, where it has a line in the user's code and names a recipe that needs
// one. A script's are read against the function around that line, from the file as it is now; a
// model's file names come from its archive, which names no file advisor reads, so its changes
// go by the line the archive holds.
void SuggestFindingChanges(std::vector<Finding>& findings, Door door);

}  // namespace advisor
