#include "engine/script/message_fields.h"

#include <algorithm>

namespace advisor::message_fields {

using nlohmann::json;

const json& Field(const json& message, const char* key) {
  auto it = message.find(key);
  if (it == message.end()) throw ProbeMessageError(std::string("missing field '") + key + "'");
  return *it;
}

std::string Text(const json& value, const char* what) {
  if (!value.is_string()) throw ProbeMessageError(std::string(what) + ": not a string");
  const std::string& text = value.get_ref<const std::string&>();
  if (text.size() > kMaxTextBytes) throw ProbeMessageError(std::string(what) + ": too long");
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
    throw ProbeMessageError(std::string(what) + ": control characters");
  }
  return text;
}

std::string TextOr(const json& message, const char* key, const char* what) {
  auto it = message.find(key);
  return it == message.end() || it->is_null() ? std::string() : Text(*it, what);
}

bool Flag(const json& value, const char* what) {
  if (!value.is_boolean()) throw ProbeMessageError(std::string(what) + ": not a boolean");
  return value.get<bool>();
}

long long Count(const json& value, const char* what) {
  if (!value.is_number_integer() || value.get<long long>() < 0) {
    throw ProbeMessageError(std::string(what) + ": not a count");
  }
  return value.get<long long>();
}

int SmallCount(const json& value, const char* what) {
  constexpr long long kMaxCount = 1LL << 30;
  const long long count = Count(value, what);
  if (count > kMaxCount) throw ProbeMessageError(std::string(what) + ": out of range");
  return static_cast<int>(count);
}

const json& Array(const json& value, std::size_t max_size, const char* what) {
  if (!value.is_array() || value.size() > max_size) {
    throw ProbeMessageError(std::string(what) + ": not an array of at most " +
                            std::to_string(max_size) + " entries");
  }
  return value;
}

double Number(const json& value, const char* what) {
  if (!value.is_number() || !(value.get<double>() >= 0)) {
    throw ProbeMessageError(std::string(what) + ": not a non-negative number");
  }
  return value.get<double>();
}

}  // namespace advisor::message_fields
