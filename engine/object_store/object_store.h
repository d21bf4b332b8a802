// What advisor needs of an object store, behind a plain interface so that libcurl stays in the one
// file that talks HTTP (s3_store.cpp): list a prefix, copy an object to a local file and back,
// delete one. Every failure is an ObjectStoreError: one line naming the URL and the problem.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/object_store/object_url.h"
#include "engine/object_store/s3_config.h"

namespace advisor {

class ObjectStoreError : public std::runtime_error {
 public:
  // "s3://bucket/key: cannot read: NoSuchBucket: The specified bucket does not exist (HTTP 404)"
  ObjectStoreError(const ObjectUrl& url, const std::string& action, const std::string& problem)
      : std::runtime_error(url.ToString() + ": cannot " + action + ": " + problem) {}
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // The names (the key after `prefix`) of the objects directly under `prefix`, in name order;
  // objects deeper down (a '/' after the prefix) are left out, as a folder's subfolders are.
  virtual std::vector<std::string> List(const ObjectUrl& prefix) = 0;
  // Writes the object to `file` as it arrives: memory holds a buffer, never the object.
  virtual void Download(const ObjectUrl& object, const std::string& file) = 0;
  // Writes `file` to the object, streamed from the disk, replacing one there.
  virtual void Upload(const std::string& file, const ObjectUrl& object) = 0;
  // Deletes the object; one that is not there is no error.
  virtual void Remove(const ObjectUrl& object) = 0;
};

// A client of the S3 API at the environment's endpoint (ResolveS3Config: AWS S3, or an
// S3-compatible store: MinIO, GCS's S3 interoperability, moto), its requests signed with
// Signature Version 4 by libcurl. Throws std::runtime_error, one line: in a build without
// libcurl (before looking for credentials), or from ResolveS3Config.
std::unique_ptr<ObjectStore> OpenS3Store(const EnvironmentLookup& environment = ProcessEnvironment);

// Whether this advisor was built with libcurl, that is, reads and writes s3:// URLs.
bool HasObjectStoreSupport();

}  // namespace advisor
