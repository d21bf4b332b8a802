// The folder the nodes of one job share, OUT/nodes beside node 0's report (docs/script-mode.md,
// "Several nodes"): node-K.json, each node's summary (node_summary.h), and released.json, node 0's
// word that it has merged them, with the step after which every node ends its ranks. Files appear
// whole (written under a temporary name, then renamed), and what is read is checked: the folder
// is on a file system other machines write to.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/script/node_summary.h"

namespace advisor {

class NodeFolder {
 public:
  // `out_dir`: the --out every node's advisor was given.
  explicit NodeFolder(const std::string& out_dir);

  const std::string& path() const { return path_; }
  std::string FileOf(int node) const;  // OUT/nodes/node-K.json

  // Makes the folder, and removes what an earlier run of `node` left in it: its summary and, on
  // node 0, the release. Called as the node's ranks start, before their training can begin, so
  // before any node looks for another's file. Throws std::runtime_error (one line).
  void Prepare(int node) const;
  // Throws std::runtime_error (one line) when the file cannot be written.
  void Write(int node, const std::string& text) const;
  bool Has(int node) const;  // node's summary is there
  // The nodes of `nodes` whose summary is not there yet.
  std::vector<int> Missing(int nodes) const;
  // Throws NodeFileError naming the file and the problem.
  NodeSummary Read(int node) const;

  // Node 0: every node ends its ranks once they have completed `end_steps` steps.
  void Release(int end_steps) const;
  // The release's step count once node 0 has written it. Throws NodeFileError for a malformed one.
  std::optional<int> Released() const;

 private:
  void WriteWhole(const std::string& name, const std::string& text) const;

  std::string path_;
};

}  // namespace advisor
