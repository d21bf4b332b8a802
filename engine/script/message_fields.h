// The field readers every probe message's reader shares: each checks one field's type and range
// and throws ProbeMessageError naming the field (`what`) and the problem.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "engine/script/timeline_codec.h"

namespace advisor::message_fields {

constexpr std::size_t kMaxTextBytes = 4096;

const nlohmann::json& Field(const nlohmann::json& message, const char* key);
// A string of at most kMaxTextBytes without control characters.
std::string Text(const nlohmann::json& value, const char* what);
// Text, or "" where the key is absent or null.
std::string TextOr(const nlohmann::json& message, const char* key, const char* what);
bool Flag(const nlohmann::json& value, const char* what);
long long Count(const nlohmann::json& value, const char* what);  // an integer >= 0
// A count of at most 2^30: far above any window's items or batches, and it fits an int.
int SmallCount(const nlohmann::json& value, const char* what);
double Number(const nlohmann::json& value, const char* what);    // a number >= 0
// An array of at most max_size entries.
const nlohmann::json& Array(const nlohmann::json& value, std::size_t max_size, const char* what);

}  // namespace advisor::message_fields
