// printf into a std::string: the one way the engine turns numbers into text with a format. The
// compiler checks every call's arguments against its format.
#pragma once

#include <string>

namespace advisor {

// Printf("%.1f ms", 12.34) == "12.3 ms". Text longer than 1 KiB is cut there.
std::string Printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace advisor
