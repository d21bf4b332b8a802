// The one reader of untrusted pickles (torch.cuda.memory._dump_snapshot files): protocols 2 to 5
// as Python's pickler writes plain data (dict, list, tuple, str, bytes, int, float, bool, None,
// its memo and protocol 4's frames), and nothing else. A pickle that names a class or a function
// (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, EXT*, PERSID...) can run code when
// Python loads it: this reader has no way to run anything, and refuses such an opcode by name
// rather than skip it. It never calls Python or LibTorch.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/pickle_input/pickle_document.h"
#include "engine/pickle_input/pickle_limits.h"

namespace advisor {

// One line: "SOURCE: byte N: PROBLEM", or "SOURCE: PROBLEM" where no byte is to blame (the file
// cannot be read).
class PickleError : public std::runtime_error {
 public:
  PickleError(const std::string& source, std::uint64_t byte, const std::string& problem)
      : std::runtime_error(source + ": byte " + std::to_string(byte) + ": " + problem) {}
  PickleError(const std::string& source, const std::string& problem)
      : std::runtime_error(source + ": " + problem) {}
};

// The document `bytes` holds, named `source` in errors. Throws PickleError on anything but one
// whole plain pickle within `limits` (bytes after its STOP included).
PickleDocument ParsePickle(std::string bytes, const std::string& source,
                           const PickleLimits& limits = {});

// The file at `path`, opened as every untrusted file is (engine/util/input_file.h), then parsed.
PickleDocument ReadPickleFile(const std::string& path, const PickleLimits& limits = {});

}  // namespace advisor
