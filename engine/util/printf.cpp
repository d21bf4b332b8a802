#include "engine/util/printf.h"

#include <cstdarg>
#include <cstdio>

namespace advisor {

std::string Printf(const char* format, ...) {
  char text[1024];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(text, sizeof text, format, arguments);
  va_end(arguments);
  return text;
}

}  // namespace advisor
