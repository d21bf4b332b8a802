// The folder the nodes of one job share, OUT/nodes beside node 0's report (docs/script-mode.md,
// "Several nodes"): node-K.json, each node's summary (node_summary.h), and released.json, node 0's
// word that it has merged them, with the step after which every node ends its ranks. Files appear
// whole (written under a temporary name, then renamed), and what is read is checked: the folder
// is on a file system other machines write to. Every file is named relative to the folder held
// open (folder_handle.h): a link at OUT/nodes, or planted in it, is refused, never followed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/script/node_summary.h"
#include "engine/util/folder_handle.h"

namespace advisor {

class NodeFolder {
 public:
  // `out_dir`: the --out every node's advisor was given. Makes OUT and OUT/nodes where they are
  // missing and opens OUT/nodes; throws std::runtime_error (one line) when it cannot, or when
  // OUT/nodes is a link or not a folder.
  explicit NodeFolder(const std::string& out_dir);

  const std::string& path() const { return folder_.path(); }
  std::string FileOf(int node) const;  // OUT/nodes/node-K.json

  // Removes what an earlier run of `node` left in the folder: its summary and, on node 0, the
  // release. Called as the node's ranks start, before their training can begin, so before any
  // node looks for another's file.
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
  // The file `name` in the folder (FolderHandle::ReadFile), its problems as NodeFileError.
  std::optional<std::string> ReadBounded(const std::string& name, std::size_t limit) const;

  FolderHandle folder_;
};

}  // namespace advisor
