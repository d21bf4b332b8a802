// The typed field reader of every reader of untrusted JSON. A JsonField is one value of a parsed
// document and knows its path ("optimizer.lr", "inputs[0].shape[1]"); each accessor checks the
// value's type and range and throws JsonInputError in the one house wording:
//
//   SOURCE: field 'PATH' must be EXPECTED, got VALUE      the wrong type, or out of range
//   SOURCE: field 'PATH' is missing                       a required field is absent
//   SOURCE: field 'PATH' is unknown (did you mean 'K'?); allowed: A, B, C
//   SOURCE: field 'PATH' PROBLEM                          a reader's own check (Fail)
//   SOURCE: top level must be an object, got [1]          the document itself
//
// EXPECTED is one of: a string, a non-empty string, a string of at most N bytes without control
// characters, true or false, an integer (from L to H, >= L), a number (> L, >= L, in [L, H),
// ...), one of "a", "b", an object, an array (non-empty, of N, at most N, at least N, L to H
// elements).
// VALUE is the JSON that was there, cut to kMaxQuotedValueBytes.
//
// A field refers to the field it was read from (for its path, rendered only when an error needs
// it), so a field must not outlive its parent: reading a member or an element of a temporary
// field does not compile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/json_input/json_input_error.h"
#include "engine/json_input/json_limits.h"

namespace advisor {

// The bounds of a number field; an open bound is excluded. Numbers are always finite.
struct NumberRange {
  double low = -std::numeric_limits<double>::infinity();
  bool low_open = false;
  double high = std::numeric_limits<double>::infinity();
  bool high_open = false;

  static NumberRange AtLeast(double low) { return {low, false}; }  // >= low
  static NumberRange Above(double low) { return {low, true}; }     // > low
  static NumberRange FromBelow(double low, double high) { return {low, false, high, true}; }
  static NumberRange Within(double low, double high) { return {low, false, high, false}; }
  // FromBelow is [low, high), Within [low, high].
};

class JsonField {
 public:
  // The top level of a document read from `source` (a file's path, "probe message \"hello\"").
  JsonField(const nlohmann::json& value, std::string source);

  const nlohmann::json& value() const { return *value_; }
  std::string Path() const;                        // "" at the top level
  std::string Source() const;                      // the top level's source
  const std::string& key() const { return key_; }  // a member's key ("" for elements)

  bool IsNull() const { return value_->is_null(); }
  bool IsString() const { return value_->is_string(); }
  bool IsObject() const { return value_->is_object(); }

  // Objects. Each checks that this field is an object.
  void ExpectObject() const;
  bool Has(const char* key) const;
  JsonField Required(const std::string& key) const&;
  std::optional<JsonField> Optional(const std::string& key) const&;         // absent: none
  std::optional<JsonField> OptionalNonNull(const std::string& key) const&;  // absent or null: none
  std::vector<JsonField> Members() const&;                                  // in key order
  // The unknown-field policy of the readers that have one: any other key is an error, with the
  // allowed key a typo most likely meant.
  void AllowOnly(const std::vector<std::string>& allowed) const;

  // Arrays. Elements checks that this field is an array of min_size to max_size elements.
  std::vector<JsonField> Elements(std::size_t min_size = 0, std::size_t max_size = SIZE_MAX) const&;
  std::size_t Size(std::size_t min_size = 0, std::size_t max_size = SIZE_MAX) const;
  // Element `index` of an array that has at least index + 1 (a row of positional fields).
  JsonField Element(std::size_t index) const&;

  std::string String() const;
  std::string NonEmptyString() const;
  // Text shown to the user: at most max_bytes, no control characters.
  std::string Text(std::size_t max_bytes = kMaxJsonTextBytes) const;
  // Text of the member `key`, or "" where it is absent or null.
  std::string OptionalText(const std::string& key) const;
  std::string Choice(const std::vector<std::string>& allowed) const;
  bool Bool() const;
  std::int64_t Integer(std::int64_t low = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t high = std::numeric_limits<std::int64_t>::max()) const;
  std::uint64_t Unsigned(std::uint64_t high = std::numeric_limits<std::uint64_t>::max()) const;
  double Number(const NumberRange& range = {}) const;
  // A number where one was measured, null where it was not (JSON has no NaN).
  std::optional<double> NumberOrNull(const NumberRange& range = {}) const;

  // "SOURCE: field 'PATH' must be EXPECTED, got VALUE".
  [[noreturn]] void Refuse(const std::string& expected) const;
  // "SOURCE: field 'PATH' PROBLEM", for a reader's own checks: `problem` is a predicate such as
  // "must equal the inputs' batch size 4".
  [[noreturn]] void Fail(const std::string& problem) const;

  // Reading a member or element of a temporary would leave the result without its parent.
  JsonField Required(const std::string&) const&& = delete;
  std::optional<JsonField> Optional(const std::string&) const&& = delete;
  std::optional<JsonField> OptionalNonNull(const std::string&) const&& = delete;
  std::vector<JsonField> Members() const&& = delete;
  std::vector<JsonField> Elements(std::size_t = 0, std::size_t = SIZE_MAX) const&& = delete;
  JsonField Element(std::size_t) const&& = delete;

 private:
  JsonField(const nlohmann::json& value, const JsonField* parent, std::string key,
            std::size_t index);

  const nlohmann::json* value_;
  const JsonField* parent_;  // null at the top level
  std::string key_;          // a member's key; the source at the top level
  std::size_t index_;        // an element's index; SIZE_MAX for members
};

// "field 'PATH'", or "top level" for the empty path.
std::string FieldName(const std::string& path);

}  // namespace advisor
