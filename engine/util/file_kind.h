// Why a path given by a user is not a file advisor can read, in words: a model or a rule path
// that is a symbolic link loop must not read "no such file", and a named pipe must be refused
// before opening it blocks forever.
#pragma once

#include <string>

namespace advisor {

// "" for a regular file (after following symbolic links); otherwise what the path is, as the end
// of "PATH: ...": "no such file", "is a symbolic link loop", "is a symbolic link to a missing
// file", "is a directory", "is a named pipe (FIFO), not a regular file", "is a device, not a
// regular file", "is a socket, not a regular file", or the OS error ("Permission denied").
std::string WhyNotARegularFile(const std::string& path);

}  // namespace advisor
