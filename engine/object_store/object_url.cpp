#include "engine/object_store/object_url.h"

#include <cctype>
#include <stdexcept>

#include "engine/util/printable_text.h"

namespace advisor {
namespace {

constexpr char kScheme[] = "s3://";

[[noreturn]] void Refuse(const std::string& text, const std::string& problem) {
  throw std::runtime_error(PrintableLine(text) + ": " + problem);
}

// S3's rule for new buckets (3 to 63 lowercase letters, digits, '.', '-'), widened to the
// underscores and capitals that older buckets and S3-compatible stores allow.
bool IsBucketName(const std::string& name) {
  if (name.size() < 3 || name.size() > 63) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') {
      return false;
    }
  }
  return true;
}

}  // namespace

ObjectUrl ObjectUrl::Child(const std::string& name) const { return ObjectUrl{bucket, key + name}; }

std::string ObjectUrl::ToString() const { return kScheme + bucket + "/" + key; }

bool IsObjectUrl(const std::string& text) { return text.rfind(kScheme, 0) == 0; }

ObjectUrl ParseObjectUrl(const std::string& text) {
  if (!IsObjectUrl(text)) Refuse(text, "not an s3:// URL");
  const std::string rest = text.substr(sizeof kScheme - 1);
  const std::size_t slash = rest.find('/');
  ObjectUrl url{rest.substr(0, slash), slash == std::string::npos ? "" : rest.substr(slash + 1)};
  if (url.bucket.empty()) Refuse(text, "no bucket (s3://BUCKET/PREFIX/)");
  if (!IsBucketName(url.bucket)) {
    Refuse(text,
           "\"" + url.bucket + "\" is no bucket name (3 to 63 letters, digits, '.', '-' and '_')");
  }
  // A key is split at '/' like a path: an empty, "." or ".." segment would name another object
  // in some stores and in a local copy of the bucket.
  std::size_t start = 0;
  while (start < url.key.size()) {
    std::size_t end = url.key.find('/', start);
    if (end == std::string::npos) end = url.key.size();
    const std::string segment = url.key.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      Refuse(text, "the key has an empty, \".\" or \"..\" part");
    }
    start = end + 1;
  }
  for (const char c : url.key) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      Refuse(text, "the key holds a control character");
    }
  }
  return url;
}

}  // namespace advisor
