// Which files `advisor analyze PATH...` reads: each PATH a trace file, or a folder holding one
// trace per rank (tensorboard_trace_handler writes *.pt.trace.json, or .json.gz).
#pragma once

#include <string>
#include <vector>

namespace advisor {

// Files named in `paths`, and the trace files directly inside folders named there, in name order
// per folder. Throws std::runtime_error (one line naming the path) for a path that does not exist
// or is no regular file (a FIFO, a socket, a device, a symbolic link loop), a trace's name in a
// folder on such a thing, or a folder without trace files.
std::vector<std::string> TraceFilesOf(const std::vector<std::string>& paths);

// A file name torch.profiler's trace writers use: .json or .json.gz.
bool IsTraceFileName(const std::string& name);

}  // namespace advisor
