#include "engine/json_input/json_document.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "engine/json_input/json_input_error.h"
#include "engine/json_input/json_limits.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ParseJsonDocument(text, "d.json");
  } catch (const JsonInputError& error) {
    return error.what();
  }
  return "";
}

TEST(ParseJsonDocument, ReadsAValidDocument) {
  const nlohmann::json document = ParseJsonDocument(R"({"a": [1, {"b": null}]})", "d.json");
  EXPECT_EQ(document["a"][0], 1);
}

TEST(ParseJsonDocument, ASyntaxErrorIsOneLineNamingTheSource) {
  const std::string error = ErrorOf("{\"a\": ");
  EXPECT_EQ(error.rfind("d.json: not valid JSON: parse error at line 1, column 7: syntax error", 0),
            0u)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  EXPECT_EQ(error.find("[json.exception"), std::string::npos) << "nlohmann's id is left out";
}

TEST(ParseJsonDocument, ANumberNoDoubleHoldsNamesItsField) {
  EXPECT_EQ(ErrorOf(R"({"optimizer": {"lr": 1e400}})"),
            "d.json: field 'optimizer.lr' must be a number a double can hold, got 1e400");
  EXPECT_EQ(ErrorOf(R"({"shape": [4, 1e999]})"),
            "d.json: field 'shape[1]' must be a number a double can hold, got 1e999");
  EXPECT_EQ(ErrorOf("1e400"), "d.json: top level must be a number a double can hold, got 1e400");
}

TEST(ParseJsonDocument, NestingIsBoundedAtMaxDepth) {
  const auto nested = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_EQ(ErrorOf(nested(kMaxJsonDepth)), "");
  std::string path;
  for (std::size_t level = 0; level < kMaxJsonDepth; ++level) path += "[0]";
  EXPECT_EQ(ErrorOf(nested(kMaxJsonDepth + 1)),
            "d.json: field '" + path + "' is nested deeper than 64 levels");
  EXPECT_EQ(ErrorOf(R"({"a": {"b": )" + nested(kMaxJsonDepth - 1) + "}}"),
            "d.json: field 'a.b" + path.substr(0, 3 * (kMaxJsonDepth - 2)) +
                "' is nested deeper than 64 levels");
}

TEST(ReadJsonFile, ReadsAFileWithinItsBound) {
  testing::ScratchDir scratch;
  std::ofstream(scratch / "r.json") << "{}";
  EXPECT_EQ(ReadJsonFile(scratch / "r.json", 2), "{}");
  try {
    ReadJsonFile(scratch / "r.json", 1);
    FAIL() << "a file above its bound was read";
  } catch (const JsonInputError& error) {
    EXPECT_EQ(std::string(error.what()), scratch / "r.json" + ": 2 bytes is too large (at most 1)");
  }
  try {
    ReadJsonFile(scratch / "absent.json", 1);
    FAIL() << "a missing file was read";
  } catch (const JsonInputError& error) {
    EXPECT_EQ(std::string(error.what()), scratch / "absent.json" + ": no such file");
  }
}

}  // namespace
}  // namespace advisor
