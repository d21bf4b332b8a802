// `s3://bucket/key` names an object, `s3://bucket/prefix/` (or `s3://bucket`) the objects under a
// prefix, the way a path names a file or a folder.
#pragma once

#include <string>

namespace advisor {

struct ObjectUrl {
  std::string bucket;
  std::string key;  // "" for the bucket's top; a prefix ends in '/'

  bool IsPrefix() const { return key.empty() || key.back() == '/'; }
  // The object `name` under this prefix.
  ObjectUrl Child(const std::string& name) const;
  std::string ToString() const;  // "s3://bucket/key"
};

// True for text that starts with "s3://": such a path is never a local file.
bool IsObjectUrl(const std::string& text);

// Throws std::runtime_error, one line naming the URL, for one without a bucket, with a bucket name
// S3 refuses, or with a key holding an empty segment ("a//b") or a "." or ".." segment.
ObjectUrl ParseObjectUrl(const std::string& text);

}  // namespace advisor
