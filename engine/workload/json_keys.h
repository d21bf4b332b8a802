// Unknown keys in a JSON object from a user's file are errors, not silence: a misspelt
// "determinstic" must not run non-deterministic, a misspelt "momentun" must not drop the momentum.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace advisor {

// "" when every key of `object` is in `allowed`; otherwise the first unknown key, the allowed key
// nearest to it when it is a likely typo, and the allowed keys, e.g. `unknown key "momentun"
// (did you mean "momentum"?); allowed: name, lr, momentum, weight_decay, foreach`.
std::string UnknownKeyProblem(const nlohmann::json& object, const std::vector<std::string>& allowed);

}  // namespace advisor
