// A problem with a rule file, named the way compilers name them so editors can jump to it.
#pragma once

#include <string>

namespace advisor {

struct RuleDiagnostic {
  std::string file;  // the rule file as found; "" when the problem is not about one file
  int line = 0;      // 1-based; 0 when no line applies (an unreadable file, a memory limit)
  std::string message;

  // "file:line: message", "file: message" without a line, "message" without a file.
  std::string ToString() const;
};

}  // namespace advisor
