// PyTorch's spelling of a dtype ("float32", "uint8"), which users know, rather than c10's
// ("Float", "Byte").
#pragma once

#include <c10/core/ScalarType.h>

#include <string>

namespace advisor {

std::string DtypeName(c10::ScalarType type);

}  // namespace advisor
