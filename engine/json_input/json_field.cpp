#include "engine/json_input/json_field.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/json_input/nearest_key.h"

namespace advisor {
namespace {

using nlohmann::json;

constexpr std::size_t kNoIndex = SIZE_MAX;

// The value as JSON, cut to kMaxQuotedValueBytes on a character boundary.
std::string Quoted(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= kMaxQuotedValueBytes) return text;
  std::size_t cut = kMaxQuotedValueBytes - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string ShowNumber(double number) {
  std::ostringstream out;
  if (number == std::floor(number) && std::abs(number) < 1e15) {
    out << static_cast<long long>(number);
  } else {
    out << number;
  }
  return out.str();
}

std::string Listed(const std::vector<std::string>& names, const char* quote) {
  std::string listed;
  for (const std::string& name : names) {
    listed += (listed.empty() ? "" : ", ") + (quote + name + quote);
  }
  return listed;
}

std::string DescribeIntegers(std::int64_t low, std::int64_t high) {
  constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kHighest = std::numeric_limits<std::int64_t>::max();
  if (low == kLowest && high == kHighest) return "an integer";
  if (high == kHighest) return "an integer >= " + std::to_string(low);
  if (low == kLowest) return "an integer <= " + std::to_string(high);
  return "an integer from " + std::to_string(low) + " to " + std::to_string(high);
}

std::string DescribeNumbers(const NumberRange& range) {
  const bool low = std::isfinite(range.low);
  const bool high = std::isfinite(range.high);
  if (low && high) {
    return "a number in " + std::string(range.low_open ? "(" : "[") + ShowNumber(range.low) + ", " +
           ShowNumber(range.high) + (range.high_open ? ")" : "]");
  }
  if (low) {
    return std::string("a number ") + (range.low_open ? "> " : ">= ") + ShowNumber(range.low);
  }
  if (high) {
    return std::string("a number ") + (range.high_open ? "< " : "<= ") + ShowNumber(range.high);
  }
  return "a number";
}

std::string ElementCount(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " element" : " elements");
}

std::string DescribeArray(std::size_t min_size, std::size_t max_size) {
  if (min_size == 0 && max_size == SIZE_MAX) return "an array";
  if (min_size == 1 && max_size == SIZE_MAX) return "a non-empty array";
  if (min_size == max_size) return "an array of " + ElementCount(min_size);
  if (min_size == 0) return "an array of at most " + ElementCount(max_size);
  if (max_size == SIZE_MAX) return "an array of at least " + ElementCount(min_size);
  return "an array of " + std::to_string(min_size) + " to " + ElementCount(max_size);
}

}  // namespace

std::string FieldName(const std::string& path) {
  return path.empty() ? "top level" : "field '" + path + "'";
}

JsonField::JsonField(const json& value, std::string source)
    : value_(&value), parent_(nullptr), key_(std::move(source)), index_(kNoIndex) {}

JsonField::JsonField(const json& value, const JsonField* parent, std::string key, std::size_t index)
    : value_(&value), parent_(parent), key_(std::move(key)), index_(index) {}

std::string JsonField::Path() const {
  if (parent_ == nullptr) return "";
  std::string path = parent_->Path();
  if (index_ != kNoIndex) return path + "[" + std::to_string(index_) + "]";
  return path.empty() ? key_ : path + "." + key_;
}

std::string JsonField::Source() const {
  const JsonField* top = this;
  while (top->parent_ != nullptr) top = top->parent_;
  return top->key_;
}

void JsonField::Fail(const std::string& problem) const {
  throw JsonInputError(Source() + ": " + FieldName(Path()) + " " + problem);
}

void JsonField::Refuse(const std::string& expected) const {
  Fail("must be " + expected + ", got " + Quoted(*value_));
}

void JsonField::ExpectObject() const {
  if (!value_->is_object()) Refuse("an object");
}

bool JsonField::Has(const char* key) const {
  ExpectObject();
  return value_->contains(key);
}

JsonField JsonField::Required(const std::string& key) const& {
  ExpectObject();
  const auto it = value_->find(key);
  if (it == value_->end()) JsonField(*value_, this, key, kNoIndex).Fail("is missing");
  return JsonField(*it, this, key, kNoIndex);
}

std::optional<JsonField> JsonField::Optional(const std::string& key) const& {
  ExpectObject();
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonField(*it, this, key, kNoIndex);
}

std::optional<JsonField> JsonField::OptionalNonNull(const std::string& key) const& {
  std::optional<JsonField> field = Optional(key);
  if (field && field->IsNull()) return std::nullopt;
  return field;
}

std::vector<JsonField> JsonField::Members() const& {
  ExpectObject();
  std::vector<JsonField> members;
  for (const auto& item : value_->items()) {
    members.push_back(JsonField(item.value(), this, item.key(), kNoIndex));
  }
  return members;
}

void JsonField::AllowOnly(const std::vector<std::string>& allowed) const {
  ExpectObject();
  for (const auto& item : value_->items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
    std::string problem = "is unknown";
    const std::string nearest = NearestKey(item.key(), allowed);
    if (!nearest.empty()) problem += " (did you mean '" + nearest + "'?)";
    JsonField(item.value(), this, item.key(), kNoIndex)
        .Fail(problem + "; allowed: " + Listed(allowed, ""));
  }
}

std::size_t JsonField::Size(std::size_t min_size, std::size_t max_size) const {
  if (!value_->is_array() || value_->size() < min_size || value_->size() > max_size) {
    Refuse(DescribeArray(min_size, max_size));
  }
  return value_->size();
}

std::vector<JsonField> JsonField::Elements(std::size_t min_size, std::size_t max_size) const& {
  const std::size_t size = Size(min_size, max_size);
  std::vector<JsonField> elements;
  elements.reserve(size);
  for (std::size_t i = 0; i < size; ++i) elements.push_back(JsonField((*value_)[i], this, "", i));
  return elements;
}

JsonField JsonField::Element(std::size_t index) const& {
  if (!value_->is_array() || index >= value_->size()) Refuse(DescribeArray(index + 1, SIZE_MAX));
  return JsonField((*value_)[index], this, "", index);
}

std::string JsonField::String() const {
  if (!value_->is_string()) Refuse("a string");
  return value_->get<std::string>();
}

std::string JsonField::NonEmptyString() const {
  if (!value_->is_string() || value_->get_ref<const std::string&>().empty()) {
    Refuse("a non-empty string");
  }
  return value_->get<std::string>();
}

std::string JsonField::Text(std::size_t max_bytes) const {
  const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20; };
  if (!value_->is_string() || value_->get_ref<const std::string&>().size() > max_bytes ||
      std::any_of(value_->get_ref<const std::string&>().begin(),
                  value_->get_ref<const std::string&>().end(), control)) {
    Refuse("a string of at most " + std::to_string(max_bytes) +
           " bytes without control characters");
  }
  return value_->get<std::string>();
}

std::string JsonField::OptionalText(const std::string& key) const {
  const std::optional<JsonField> field = OptionalNonNull(key);
  return field ? field->Text() : std::string();
}

std::string JsonField::Choice(const std::vector<std::string>& allowed) const {
  if (!value_->is_string() || std::find(allowed.begin(), allowed.end(),
                                        value_->get_ref<const std::string&>()) == allowed.end()) {
    Refuse("one of " + Listed(allowed, "\""));
  }
  return value_->get<std::string>();
}

bool JsonField::Bool() const {
  if (!value_->is_boolean()) Refuse("true or false");
  return value_->get<bool>();
}

std::int64_t JsonField::Integer(std::int64_t low, std::int64_t high) const {
  // An unsigned integer above int64's range is out of every range this reads.
  const bool integer =
      value_->is_number_integer() &&
      !(value_->is_number_unsigned() &&
        value_->get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()});
  if (!integer || value_->get<std::int64_t>() < low || value_->get<std::int64_t>() > high) {
    Refuse(DescribeIntegers(low, high));
  }
  return value_->get<std::int64_t>();
}

std::uint64_t JsonField::Unsigned(std::uint64_t high) const {
  const bool unsigned_integer = value_->is_number_unsigned() ||
                                (value_->is_number_integer() && value_->get<std::int64_t>() >= 0);
  if (!unsigned_integer || value_->get<std::uint64_t>() > high) {
    Refuse(high == std::numeric_limits<std::uint64_t>::max()
               ? "an integer >= 0"
               : "an integer from 0 to " + std::to_string(high));
  }
  return value_->get<std::uint64_t>();
}

double JsonField::Number(const NumberRange& range) const {
  if (!value_->is_number()) Refuse(DescribeNumbers(range));
  const double number = value_->get<double>();
  const bool above = range.low_open ? number > range.low : number >= range.low;
  const bool below = range.high_open ? number < range.high : number <= range.high;
  if (!std::isfinite(number) || !above || !below) Refuse(DescribeNumbers(range));
  return number;
}

std::optional<double> JsonField::NumberOrNull(const NumberRange& range) const {
  if (IsNull()) return std::nullopt;
  return Number(range);
}

}  // namespace advisor
