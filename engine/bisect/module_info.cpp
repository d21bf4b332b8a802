#include "engine/bisect/module_info.h"

namespace advisor {

std::string ParentPath(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

}  // namespace advisor
