// One node's part in a job that runs on several (advisor bisect --out SHARED -- torchrun --nnodes
// N --node_rank K ...; docs/script-mode.md, "Several nodes"). Each node's advisor bisects its own
// ranks; the nodes speak only through files in the shared folder (node_folder.h), never through
// the user's job:
//
//  1. every node, its bisection done, records one window with every module instrumented (the same
//     window on every node, whatever each one's bisection chose, so that the straggler's modules
//     are compared like with like) and writes its ranks' summary;
//  2. node 0 waits for every node's summary and merges them (node_merge.h); the others wait for
//     node 0's release;
//  3. node 0 releases the job at a step every node can still reach, and every node ends its ranks
//     after that step: they end together, none in a collective the others have left.
//
// While a node waits, its ranks keep stepping, a short timed window at a time: the other nodes'
// ranks cannot step without them. Each wait is bounded (--nodes-timeout): node 0's for the
// summaries from its own; another node's for the release from node 0's summary on (until then
// node 0 still bisects, and its ranks step with these; the step timeout bounds a stuck one).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/script/node_folder.h"
#include "engine/script/script_source.h"

namespace advisor {

class NodeExchange {
 public:
  // Prepares the shared folder for this node (node_folder.h: Prepare), as its ranks start.
  NodeExchange(const std::string& out_dir, const JobPlace& place, std::chrono::seconds timeout,
               const Progress& progress);

  const JobPlace& place() const { return place_; }
  const NodeFolder& folder() const { return folder_; }

  // Step 1. `report`: the node's own bisection, for its hot spot.
  void Share(ScriptSource& source, const ScriptOptions& script, int window_steps,
             const RunReport& report);
  // Step 2 on node 0: every node's summary merged. Throws std::runtime_error (one line) naming
  // the nodes whose summary did not come in time, or the file that is wrong.
  DistributedSummary Merge(ScriptSource& source);
  // Step 3 on node 0, once it needs its ranks no more.
  void Release(ScriptSource& source);
  // Steps 2 and 3 on the other nodes. Throws std::runtime_error (one line) when node 0 did not
  // release the job in time.
  void AwaitRelease(ScriptSource& source);

 private:
  // Steps the ranks until `done` holds; throws std::runtime_error with `what_is_missing()` when
  // the timeout passes (and `hint`, what to look at) or the job ends first. The timeout counts
  // from when `counting` first holds (from the start where it is empty).
  void KeepSteppingUntil(ScriptSource& source, const std::function<bool()>& done,
                         const std::function<std::string()>& what_is_missing,
                         const std::string& hint, const std::function<bool()>& counting = {});
  // Steps the ranks until they have completed `end_steps` steps (or as near as a window allows);
  // a job that ends meanwhile is only noted.
  void StepTo(ScriptSource& source, int end_steps);

  JobPlace place_;
  std::chrono::seconds timeout_;
  const Progress& progress_;
  NodeFolder folder_;
};

}  // namespace advisor
