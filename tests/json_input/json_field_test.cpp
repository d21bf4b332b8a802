#include "engine/json_input/json_field.h"

#include <gtest/gtest.h>

#include <string>

namespace advisor {
namespace {

using nlohmann::json;

// The error reading `read` from the document {"f": VALUE} at "f.json" gives; "" when it reads.
template <class Read>
std::string ErrorOf(const json& value, Read read) {
  const json document = {{"f", value}};
  const JsonField root(document, "f.json");
  try {
    read(root.Required("f"));
  } catch (const JsonInputError& error) {
    return error.what();
  }
  return "";
}

TEST(JsonField, ReadsEachType) {
  const json document = json::parse(R"({"s": "text", "b": true, "i": -3, "u": 18446744073709551615,
                                        "n": 0.5, "a": [1, 2], "o": {"k": null}})");
  const JsonField root(document, "f.json");
  EXPECT_EQ(root.Required("s").String(), "text");
  EXPECT_EQ(root.Required("s").Text(), "text");
  EXPECT_EQ(root.Required("s").Choice({"other", "text"}), "text");
  EXPECT_TRUE(root.Required("b").Bool());
  EXPECT_EQ(root.Required("i").Integer(), -3);
  EXPECT_EQ(root.Required("u").Unsigned(), 18446744073709551615u);
  EXPECT_DOUBLE_EQ(root.Required("n").Number(), 0.5);
  EXPECT_DOUBLE_EQ(root.Required("i").Number(), -3.0) << "an integer is a number";
  const JsonField array = root.Required("a");
  ASSERT_EQ(array.Elements(2, 2).size(), 2u);
  EXPECT_EQ(array.Element(1).Integer(), 2);
  EXPECT_EQ(array.Size(), 2u);
  const JsonField object = root.Required("o");
  EXPECT_TRUE(object.Optional("k").has_value()) << "present, if null";
  EXPECT_FALSE(object.OptionalNonNull("k").has_value());
  EXPECT_FALSE(object.Optional("absent").has_value());
  EXPECT_TRUE(object.Has("k"));
  ASSERT_EQ(root.Members().size(), 7u);
  EXPECT_EQ(root.Members()[0].key(), "a") << "in key order";
}

TEST(JsonField, TypeErrorsSayWhatWasExpectedAndWhatCame) {
  EXPECT_EQ(ErrorOf(3, [](const JsonField& f) { f.String(); }),
            "f.json: field 'f' must be a string, got 3");
  EXPECT_EQ(ErrorOf("", [](const JsonField& f) { f.NonEmptyString(); }),
            "f.json: field 'f' must be a non-empty string, got \"\"");
  EXPECT_EQ(ErrorOf("yes", [](const JsonField& f) { f.Bool(); }),
            "f.json: field 'f' must be true or false, got \"yes\"");
  EXPECT_EQ(ErrorOf(2.5, [](const JsonField& f) { f.Integer(); }),
            "f.json: field 'f' must be an integer, got 2.5");
  EXPECT_EQ(ErrorOf("1", [](const JsonField& f) { f.Number(); }),
            "f.json: field 'f' must be a number, got \"1\"");
  EXPECT_EQ(ErrorOf(json::array(), [](const JsonField& f) { f.ExpectObject(); }),
            "f.json: field 'f' must be an object, got []");
  EXPECT_EQ(ErrorOf(json::object(), [](const JsonField& f) { f.Elements(); }),
            "f.json: field 'f' must be an array, got {}");
  EXPECT_EQ(ErrorOf("gpu",
                    [](const JsonField& f) {
                      f.Choice({"cpu", "cuda"});
                    }),
            "f.json: field 'f' must be one of \"cpu\", \"cuda\", got \"gpu\"");
  EXPECT_EQ(ErrorOf(1,
                    [](const JsonField& f) {
                      f.Choice({"cpu", "cuda"});
                    }),
            "f.json: field 'f' must be one of \"cpu\", \"cuda\", got 1");
}

TEST(JsonField, IntegersKeepTheirBounds) {
  const auto integer = [](std::int64_t low, std::int64_t high) {
    return [low, high](const JsonField& f) { f.Integer(low, high); };
  };
  EXPECT_EQ(ErrorOf(1, integer(1, 10)), "");
  EXPECT_EQ(ErrorOf(10, integer(1, 10)), "");
  EXPECT_EQ(ErrorOf(0, integer(1, 10)), "f.json: field 'f' must be an integer from 1 to 10, got 0");
  EXPECT_EQ(ErrorOf(11, integer(1, 10)),
            "f.json: field 'f' must be an integer from 1 to 10, got 11");
  EXPECT_EQ(ErrorOf(-1, [](const JsonField& f) { f.Integer(0); }),
            "f.json: field 'f' must be an integer >= 0, got -1");
  EXPECT_EQ(ErrorOf(5, [](const JsonField& f) { f.Integer(INT64_MIN, 4); }),
            "f.json: field 'f' must be an integer <= 4, got 5");
  // Above int64: out of every range, never wrapped to a negative number.
  EXPECT_EQ(ErrorOf(json(std::uint64_t{1} << 63), [](const JsonField& f) { f.Integer(); }),
            "f.json: field 'f' must be an integer, got 9223372036854775808");
  EXPECT_EQ(ErrorOf(-1, [](const JsonField& f) { f.Unsigned(); }),
            "f.json: field 'f' must be an integer >= 0, got -1");
  EXPECT_EQ(ErrorOf(70000, [](const JsonField& f) { f.Unsigned(65535); }),
            "f.json: field 'f' must be an integer from 0 to 65535, got 70000");
}

TEST(JsonField, NumbersKeepTheirBoundsOpenOrClosed) {
  const auto number = [](NumberRange range) {
    return [range](const JsonField& f) { f.Number(range); };
  };
  EXPECT_EQ(ErrorOf(0, number(NumberRange::AtLeast(0))), "");
  EXPECT_EQ(ErrorOf(-0.5, number(NumberRange::AtLeast(0))),
            "f.json: field 'f' must be a number >= 0, got -0.5");
  EXPECT_EQ(ErrorOf(1e-300, number(NumberRange::Above(0))), "");
  EXPECT_EQ(ErrorOf(0, number(NumberRange::Above(0))),
            "f.json: field 'f' must be a number > 0, got 0");
  EXPECT_EQ(ErrorOf(0, number(NumberRange::FromBelow(0, 1))), "");
  EXPECT_EQ(ErrorOf(1.0, number(NumberRange::FromBelow(0, 1))),
            "f.json: field 'f' must be a number in [0, 1), got 1.0");
  EXPECT_EQ(ErrorOf(1e6, number(NumberRange::Within(0, 1e6))), "");
  EXPECT_EQ(ErrorOf(1000001, number(NumberRange::Within(0, 1e6))),
            "f.json: field 'f' must be a number in [0, 1000000], got 1000001");
  EXPECT_EQ(ErrorOf(0.25, number(NumberRange::Within(0.5, 1.5))),
            "f.json: field 'f' must be a number in [0.5, 1.5], got 0.25");
  // A JSON document has no infinity; a value built in code may.
  EXPECT_EQ(ErrorOf(HUGE_VAL, number({})), "f.json: field 'f' must be a number, got null");
}

TEST(JsonField, ArraysKeepTheirLengthBounds) {
  const auto elements = [](std::size_t low, std::size_t high) {
    return [low, high](const JsonField& f) { f.Elements(low, high); };
  };
  EXPECT_EQ(ErrorOf(json::array({1, 2}), elements(0, 2)), "");
  EXPECT_EQ(ErrorOf(json::array({1, 2, 3}), elements(0, 2)),
            "f.json: field 'f' must be an array of at most 2 elements, got [1,2,3]");
  EXPECT_EQ(ErrorOf(json::array(), elements(1, SIZE_MAX)),
            "f.json: field 'f' must be a non-empty array, got []");
  EXPECT_EQ(ErrorOf(json::array({1}), elements(2, 2)),
            "f.json: field 'f' must be an array of 2 elements, got [1]");
  EXPECT_EQ(ErrorOf(json::array(), elements(1, 4096)),
            "f.json: field 'f' must be an array of 1 to 4096 elements, got []");
  EXPECT_EQ(ErrorOf(json::array({1}), elements(3, SIZE_MAX)),
            "f.json: field 'f' must be an array of at least 3 elements, got [1]");
  EXPECT_EQ(ErrorOf(json::array({1}), [](const JsonField& f) { f.Element(0); }), "");
  EXPECT_EQ(ErrorOf(json::array({1}), [](const JsonField& f) { f.Element(1); }),
            "f.json: field 'f' must be an array of at least 2 elements, got [1]");
  EXPECT_EQ(ErrorOf(json::array(), [](const JsonField& f) { f.Element(0); }),
            "f.json: field 'f' must be a non-empty array, got []");
}

TEST(JsonField, TextIsBoundedAndFreeOfControlCharacters) {
  EXPECT_EQ(ErrorOf(std::string(kMaxJsonTextBytes, 'x'), [](const JsonField& f) { f.Text(); }), "");
  EXPECT_EQ(ErrorOf(std::string(kMaxJsonTextBytes + 1, 'x'), [](const JsonField& f) { f.Text(); }),
            "f.json: field 'f' must be a string of at most 4096 bytes without control characters, "
            "got \"" +
                std::string(36, 'x') + "...");
  EXPECT_EQ(ErrorOf("a\x1b[2J", [](const JsonField& f) { f.Text(8); }),
            "f.json: field 'f' must be a string of at most 8 bytes without control characters, "
            "got \"a\\u001b[2J\"");
  EXPECT_EQ(ErrorOf(std::string(5000, 'x'), [](const JsonField& f) { f.String(); }), "")
      << "String() has no bound of its own";
}

TEST(JsonField, QuotedValuesAreCutOnACharacterBoundary) {
  // 36 ASCII bytes, then a two-byte character across the cut.
  const std::string text = std::string(35, 'a') + "\u00e9\u00e9";
  EXPECT_EQ(ErrorOf(text, [](const JsonField& f) { f.Integer(); }),
            "f.json: field 'f' must be an integer, got \"" + std::string(35, 'a') + "...");
}

TEST(JsonField, ObjectsNameMissingAndUnknownFields) {
  const json document = json::parse(R"({"optimizer": {"name": "sgd", "momentun": 0.9}})");
  const JsonField root(document, "w.json");
  const JsonField optimizer = root.Required("optimizer");
  try {
    optimizer.Required("lr");
    FAIL() << "a missing field was read";
  } catch (const JsonInputError& error) {
    EXPECT_STREQ(error.what(), "w.json: field 'optimizer.lr' is missing");
  }
  try {
    optimizer.AllowOnly({"name", "lr", "momentum"});
    FAIL() << "an unknown field was let through";
  } catch (const JsonInputError& error) {
    EXPECT_STREQ(error.what(),
                 "w.json: field 'optimizer.momentun' is unknown (did you mean "
                 "'momentum'?); allowed: name, lr, momentum");
  }
  try {
    root.AllowOnly({"inputs"});
    FAIL() << "an unknown field was let through";
  } catch (const JsonInputError& error) {
    EXPECT_STREQ(error.what(), "w.json: field 'optimizer' is unknown; allowed: inputs")
        << "no suggestion when nothing is near";
  }
  EXPECT_NO_THROW(optimizer.AllowOnly({"name", "momentun"}));
  const JsonField name = optimizer.Required("name");
  EXPECT_THROW(name.Required("x"), JsonInputError) << "a string has no fields";
}

TEST(JsonField, PathsNameNestedMembersAndElements) {
  const json document = json::parse(R"({"inputs": [{"shape": [4, "x"]}]})");
  const JsonField root(document, "m.pt:advisor/workload.json");
  const JsonField inputs = root.Required("inputs");
  const JsonField input = inputs.Element(0);
  const JsonField shape = input.Required("shape");
  EXPECT_EQ(shape.Element(1).Path(), "inputs[0].shape[1]");
  EXPECT_EQ(shape.Source(), "m.pt:advisor/workload.json");
  EXPECT_EQ(root.Path(), "");
  try {
    shape.Element(1).Integer(1);
    FAIL() << "a string was read as an integer";
  } catch (const JsonInputError& error) {
    EXPECT_STREQ(error.what(),
                 "m.pt:advisor/workload.json: field 'inputs[0].shape[1]' must be an "
                 "integer >= 1, got \"x\"");
  }
}

TEST(JsonField, TheTopLevelAndAReadersOwnChecksUseTheSameWording) {
  const json document = json::array();
  const JsonField root(document, "r.json");
  try {
    root.ExpectObject();
    FAIL() << "an array was taken for an object";
  } catch (const JsonInputError& error) {
    EXPECT_STREQ(error.what(), "r.json: top level must be an object, got []");
  }
  EXPECT_EQ(ErrorOf(5, [](const JsonField& f) { f.Fail("must equal the batch size 4"); }),
            "f.json: field 'f' must equal the batch size 4");
  EXPECT_EQ(ErrorOf(5, [](const JsonField& f) { f.Refuse("an even integer"); }),
            "f.json: field 'f' must be an even integer, got 5");
  EXPECT_EQ(FieldName(""), "top level");
  EXPECT_EQ(FieldName("a.b"), "field 'a.b'");
}

}  // namespace
}  // namespace advisor
