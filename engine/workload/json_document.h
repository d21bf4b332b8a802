// Parsing a JSON document from a user's file into one-line errors that name the file and, where
// the parser stops inside a value, the field: a number no double can hold ("lr": 1e400) came out
// as "[json.exception.out_of_range.406] number overflow parsing '1e400'", naming neither.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace advisor {

// Throws WorkloadError (workload_spec.h): "SOURCE: not valid JSON: ..." for a syntax error, and
// "SOURCE: optimizer.lr: number overflow parsing '1e400'" for a number out of range.
nlohmann::json ParseJsonDocument(const std::string& text, const std::string& source);

}  // namespace advisor
