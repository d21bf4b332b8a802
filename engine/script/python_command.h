// Whether a command starts Python: `advisor bisect -- COMMAND` refuses anything else before it
// runs, with one line. A program named python* is Python; so is a script whose #! line names a
// Python (torchrun, accelerate and other launchers installed by pip).
#pragma once

#include <string>
#include <vector>

namespace advisor {

// "" when `command` starts Python on a script file or module, else the one-line reason (not
// Python; `python -c CODE` or `python -`, which give no file to name lines in).
std::string WhyNotPython(const std::vector<std::string>& command);

// The script and its arguments within the command: from the first argument ending in .py (or
// `-m MODULE` that is not a launcher's) on; the whole command when neither is there.
std::vector<std::string> ScriptPart(const std::vector<std::string>& command);

}  // namespace advisor
