#include "engine/object_store/object_url.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace advisor {
namespace {

TEST(ObjectUrlTest, SplitsBucketAndKey) {
  const ObjectUrl object = ParseObjectUrl("s3://my-bucket/runs/7/rank0.json.gz");
  EXPECT_EQ(object.bucket, "my-bucket");
  EXPECT_EQ(object.key, "runs/7/rank0.json.gz");
  EXPECT_FALSE(object.IsPrefix());
  EXPECT_EQ(object.ToString(), "s3://my-bucket/runs/7/rank0.json.gz");

  const ObjectUrl prefix = ParseObjectUrl("s3://my-bucket/runs/7/");
  EXPECT_TRUE(prefix.IsPrefix());
  EXPECT_EQ(prefix.Child("report.json").ToString(), "s3://my-bucket/runs/7/report.json");
  EXPECT_TRUE(ParseObjectUrl("s3://my-bucket").IsPrefix());
  EXPECT_EQ(ParseObjectUrl("s3://my-bucket").key, "");
}

TEST(ObjectUrlTest, TellsUrlsFromPaths) {
  EXPECT_TRUE(IsObjectUrl("s3://b/k"));
  EXPECT_FALSE(IsObjectUrl("traces/s3://b"));
  EXPECT_FALSE(IsObjectUrl("S3:/b"));
}

void ExpectRefused(const std::string& url, const std::string& problem) {
  try {
    ParseObjectUrl(url);
    ADD_FAILURE() << url << " was accepted";
  } catch (const std::runtime_error& error) {
    const std::string line = error.what();
    EXPECT_NE(line.find(problem), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
}

TEST(ObjectUrlTest, RefusesWhatNamesNoObjectWithOneLine) {
  ExpectRefused("s3://", "s3://: no bucket");
  ExpectRefused("s3:///key", "no bucket");
  ExpectRefused("s3://ab/key", "\"ab\" is no bucket name");
  ExpectRefused("s3://bad bucket/key", "is no bucket name");
  ExpectRefused("s3://bucket/a//b", "empty, \".\" or \"..\" part");
  ExpectRefused("s3://bucket/a/../b", "empty, \".\" or \"..\" part");
  ExpectRefused("s3://bucket/a\nb", "control character");
}

}  // namespace
}  // namespace advisor
