// A report folder's files uploaded to an object store prefix with the promise a local report
// folder keeps (engine/report/report_dir.h): PREFIX/report.json, the marker, exists only beside a
// complete set of one run's files.
//
// Object stores have no rename, so the set cannot appear at once. The order makes the marker
// honest instead:
//   1. the previous run's report.json is deleted: from here on the prefix holds no report;
//   2. the other files are uploaded, each replacing the previous run's;
//   3. report.json is uploaded, last.
// A failure at 2 or 3 deletes what this run uploaded (where the store still answers) and leaves
// no report.json: a reader of the bucket sees no report, or, where the store stopped answering,
// files without a report.json, which advisor never wrote as a report. Unlike a local folder, the
// previous report is gone once step 1 is done, and two runs writing to one prefix at once are not
// kept apart.
#pragma once

#include <string>
#include <vector>

#include "engine/object_store/object_store.h"

namespace advisor {

inline constexpr char kReportMarker[] = "report.json";

// Uploads the files `names` of `folder` to `prefix` (an ObjectUrl ending in '/'). Throws
// ObjectStoreError naming the object that failed, after the clean-up above.
void UploadReport(ObjectStore& store, const std::string& folder,
                  const std::vector<std::string>& names, const ObjectUrl& prefix);

}  // namespace advisor
