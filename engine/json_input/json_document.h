// Untrusted JSON text into a document, or one JsonInputError line that names the source: a syntax
// error, a document nested deeper than kMaxJsonDepth, a number no double can hold ("lr": 1e400,
// with the field named: nlohmann's own "number overflow parsing '1e400'" names neither), a file
// larger than its format allows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace advisor {

// "SOURCE: not valid JSON: syntax error while parsing value - unexpected end of input; ...",
// "SOURCE: field 'a.b[0]' is nested deeper than 64 levels",
// "SOURCE: field 'optimizer.lr' must be a number a double can hold, got 1e400".
nlohmann::json ParseJsonDocument(std::string_view text, const std::string& source);

// The text of the file at `path` if it has at most `max_bytes`: "PATH: cannot read: REASON",
// "PATH: 70000 bytes is too large (at most 65536)".
std::string ReadJsonFile(const std::string& path, std::uintmax_t max_bytes);

// The same size check for text that came another way: "SOURCE: N bytes is too large (at most M)".
void CheckJsonSize(const std::string& source, std::uintmax_t size, std::uintmax_t max_bytes);

}  // namespace advisor
