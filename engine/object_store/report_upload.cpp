#include "engine/object_store/report_upload.h"

#include <algorithm>

namespace advisor {

void UploadReport(ObjectStore& store, const std::string& folder,
                  const std::vector<std::string>& names, const ObjectUrl& prefix) {
  std::vector<std::string> ordered = names;
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const std::string& name) { return name != kReportMarker; });
  store.Remove(prefix.Child(kReportMarker));
  std::vector<ObjectUrl> uploaded;
  try {
    for (const std::string& name : ordered) {
      const ObjectUrl object = prefix.Child(name);
      store.Upload(folder + "/" + name, object);
      uploaded.push_back(object);
    }
  } catch (const ObjectStoreError&) {
    for (const ObjectUrl& object : uploaded) {
      try {
        store.Remove(object);
      } catch (const ObjectStoreError&) {
        break;  // the store stopped answering: the rest lies beside no report.json
      }
    }
    throw;
  }
}

}  // namespace advisor
