// The parallel split of a trace held whole in memory (a mapped file): the text is cut into chunks
// where one event most likely ends and the next begins, and each chunk is scanned and parsed on
// its own thread from a guessed start state, inside the event array with an element next. The
// guess is checked at the seams, in file order: a chunk counts only when the state it started
// from equals the real state where the previous chunk ended (DocumentScanner::SameStateAs);
// otherwise it is scanned again from the real state. Whatever the guesses, the result is the
// serial scan's.
//
// The cut is a '{' after "}," (whitespace allowed around the comma): every trace writer puts
// each event's end so, Kineto on lines of their own ("  },\n  {"), the legacy exporter on one
// line ("}}, {"). Inside an event it needs an array of objects, inside a string a name with
// "}, {": a wrong guess there costs one chunk's second scan.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "engine/trace_import/document_scanner.h"
#include "engine/trace_import/event_parser.h"

namespace advisor {

// The next cut in text[from, limit): the '{' of an event that likely follows another; else
// `limit`, a cut anywhere, so that no chunk (nor what its scan holds) grows without bound: its
// guess is checked like any other.
std::uint64_t NextCut(const char* text, std::uint64_t from, std::uint64_t limit);

// A top-level member the scan found: its name and value's text [begin, end).
struct FoundMember {
  std::string key;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// What scanning the chunk [begin, end) from `start` found.
struct ChunkScan {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  DocumentScanner start;  // the state it was scanned from
  DocumentScanner after;  // the state at `end`
  ParsedBatch parsed;     // its events, and the elements skipped, in file order
  std::vector<FoundMember> members;
  std::exception_ptr error;  // the TraceError that stopped the scan, if one did
};

// Scans text[begin, end) from `start` and parses the events it finds; `text` holds the whole
// document (an event that began before `begin` is read from it). Never throws TraceError: a
// document error is kept in `error`, to count only if `start` turns out to be the real state.
ChunkScan ScanChunk(const DocumentScanner& start, const char* text, std::uint64_t begin,
                    std::uint64_t end);

}  // namespace advisor
