// OpenS3Store in a build without libcurl (the GPU machine has no libcurl headers): s3:// URLs
// fail at once with one line saying why, before anything is read.
#include <stdexcept>

#include "engine/object_store/object_store.h"

namespace advisor {

std::unique_ptr<ObjectStore> OpenS3Store(const EnvironmentLookup&) {
  throw std::runtime_error(
      "this advisor was built without libcurl, so it cannot read or write s3:// URLs: install "
      "libcurl4-openssl-dev (Debian, Ubuntu) and build again (scripts/setup.sh), or copy the "
      "files to a local folder");
}

bool HasObjectStoreSupport() { return false; }

}  // namespace advisor
