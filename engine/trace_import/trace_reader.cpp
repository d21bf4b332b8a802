#include "engine/trace_import/trace_reader.h"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "engine/trace_import/chunk_scan.h"
#include "engine/trace_import/document_scanner.h"
#include "engine/trace_import/event_parser.h"
#include "engine/trace_import/gzip_members.h"
#include "engine/trace_import/input_stream.h"
#include "engine/trace_import/json_scan.h"
#include "engine/trace_import/read_ahead.h"
#include "engine/trace_import/trace_error.h"
#include "engine/trace_import/trace_metadata.h"
#include "engine/util/ordered_pool.h"

namespace advisor {
namespace {

// A batch is handed to a parser thread at this many bytes or events: large enough that queueing
// costs nothing beside parsing, small enough that every thread gets work from one block.
constexpr std::size_t kBatchBytes = 256u << 10;
constexpr std::size_t kBatchEvents = 4096;

// JSON text from byte `offset` of the document.
struct Block {
  std::vector<char> data;
  std::size_t size = 0;
  std::uint64_t offset = 0;
};

// Blocks are reused: a fresh allocation per block would cost a page fault per 4 KiB read.
class BlockPool {
 public:
  std::shared_ptr<Block> Get(std::size_t capacity) {
    std::unique_ptr<Block> block;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        block = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!block) block = std::make_unique<Block>();
    if (block->data.size() < capacity) block->data.resize(capacity);
    block->size = 0;
    block->offset = 0;
    return std::shared_ptr<Block>(block.release(), [this](Block* done) {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.emplace_back(done);
    });
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> free_;
};

struct Batch {
  std::shared_ptr<Block> block;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> events;  // start in block, length
  std::size_t bytes = 0;
};

void Reserve(EventChunk& chunk, std::size_t events) {
  chunk.category.reserve(events);
  chunk.phase.reserve(events);
  chunk.name.reserve(events);
  chunk.pid.reserve(events);
  chunk.tid.reserve(events);
  chunk.ts_ns.reserve(events);
  chunk.dur_ns.reserve(events);
  chunk.external_id.reserve(events);
  chunk.correlation.reserve(events);
  chunk.sequence_number.reserve(events);
  chunk.forward_thread.reserve(events);
  chunk.input_type.reserve(events);
  chunk.extra.reserve(events);
}

ParsedBatch ParseBatch(Batch& batch) {
  ParsedBatch parsed;
  Reserve(parsed.chunk, batch.events.size());
  const char* text = batch.block->data.data();
  for (const auto& [start, length] : batch.events) {
    ParseEvent(text + start, text + start + length, batch.block->offset + start, parsed);
  }
  return parsed;
}

void AddProblem(ReadStats& stats, std::string problem) {
  if (stats.problems.size() < kProblemsKept) stats.problems.push_back(std::move(problem));
}

// Moves a parsed batch into the store: its strings join the store's table, its columns no
// event filled go.
void Merge(ParsedBatch&& parsed, TraceStore& store) {
  std::vector<std::uint32_t> global;
  global.reserve(parsed.strings.size());
  for (std::uint32_t id = 0; id < parsed.strings.size(); ++id) {
    global.push_back(store.strings.Intern(parsed.strings[id]));
  }
  EventChunk& chunk = parsed.chunk;
  chunk.DropMissingColumns();
  for (std::uint32_t& name : chunk.name) name = global[name];
  for (std::uint32_t& type : chunk.input_type) type = global[type];
  for (EventExtras& extras : chunk.extras) {
    extras.module_hierarchy = global[extras.module_hierarchy];
    CollectiveArgs& collective = extras.collective;
    collective.name = global[collective.name];
    collective.process_group = global[collective.process_group];
    collective.group_description = global[collective.group_description];
    collective.dtype = global[collective.dtype];
  }
  store.stats.events += chunk.size();
  store.stats.skipped_events += parsed.skipped;
  for (std::string& problem : parsed.problems) AddProblem(store.stats, std::move(problem));
  if (chunk.size() > 0) store.chunks.push_back(std::move(chunk));
}

// The first byte of the document, past whitespace and a byte order mark, is '['.
bool IsBareArray(const char* text, std::uint64_t size) {
  std::uint64_t i = size >= 3 && std::memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  while (i < size && json_scan::IsSpace(text[i])) ++i;
  return i < size && text[i] == '[';
}

// A chunk of a mapped file and the state its scan starts from (a guess after the first).
struct ChunkTask {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  DocumentScanner start;
};

class Reader : public ScanSink {
 public:
  Reader(const std::string& path, const ReadOptions& options)
      : options_(options),
        threads_(options.threads > 0 ? options.threads : DefaultReaderThreads()),
        scanner_(path, options.max_event_bytes) {
    store_.path = path;
  }

  TraceStore Run() {
    if (std::unique_ptr<MappedFile> file = MappedFile::Open(store_.path)) {
      store_.stats.file_bytes = file->size();
      store_.stats.json_bytes = file->size();
      ReadChunks(*file);
    } else {
      ReadBlocks();
    }
    store_.stats.truncated = scanner_.truncated();
    if (scanner_.truncated()) {
      AddProblem(store_.stats, "byte " + std::to_string(store_.stats.json_bytes) +
                                   ": the file ends inside the event array (cut off?); the "
                                   "events before were read");
    }
    store_.metadata.has_trace_events_object = !scanner_.top_level_array();
    return std::move(store_);
  }

  // The block reader's scanner calls these; Finish, at the end of either path, only Skipped.
  // Without parsers, each event is parsed where the scanner meets it, as a mapped file's chunks
  // are (one pass over its text, where finding its end first and parsing it after were two):
  // nullptr when it does not parse whole before `end`, and the scanner finds its end for Event.
  const char* EventAt(const char* begin, const char* end) override {
    if (parsers_) return nullptr;
    const char* after = ParseEventAt(begin, end, parsed_);
    if (after != nullptr) Added(static_cast<std::size_t>(after - begin));
    return after;
  }

  void Event(std::uint64_t begin, std::uint64_t end) override {
    const auto start = static_cast<std::uint32_t>(begin - block_->offset);
    const auto length = static_cast<std::uint32_t>(end - begin);
    if (parsers_) {
      batch_.events.emplace_back(start, length);
    } else {
      const char* text = block_->data.data() + start;
      ParseEvent(text, text + length, begin, parsed_);
    }
    Added(length);
  }

  void Skipped(std::uint64_t begin, const char* problem) override {
    if (!parsers_) {  // in file order with the events parsed here
      SkipEvent(begin, problem, parsed_);
      return Added(0);
    }
    ++store_.stats.skipped_events;
    CheckEventCount();
    AddProblem(store_.stats, "byte " + std::to_string(begin) + ": " + problem +
                                 "; the event is skipped");
  }

  void Member(const std::string& key, std::uint64_t begin, std::uint64_t end) override {
    KeepMember(key, std::string_view(block_->data.data() + (begin - block_->offset), end - begin),
               begin);
  }

 private:
  void KeepMember(const std::string& key, std::string_view text, std::uint64_t begin) {
    std::vector<std::string> problems;
    try {
      ReadMetadataMember(key, text, begin, store_.metadata, problems);
    } catch (const std::invalid_argument& error) {
      throw TraceError(store_.path, error.what());
    }
    for (std::string& problem : problems) AddProblem(store_.stats, std::move(problem));
  }

  // A file that is not compressed: mapped, cut into chunks, each scanned and parsed on a thread
  // of its own from a guessed state, the guesses checked in file order (chunk_scan.h).
  void ReadChunks(MappedFile& file) {
    const char* text = file.data();
    const std::uint64_t size = file.size();
    const bool bare_array = IsBareArray(text, size);
    std::unique_ptr<OrderedPool<ChunkTask, ChunkScan>> pool;
    if (threads_ > 1) {
      pool = std::make_unique<OrderedPool<ChunkTask, ChunkScan>>(
          threads_, [text](ChunkTask& task) {
            return ScanChunk(task.start, text, task.begin, task.end);
          });
    }
    ChunkScan done;
    for (std::uint64_t cut = 0; cut < size;) {
      const std::uint64_t from = std::min(size, cut + options_.chunk_bytes);
      const std::uint64_t next = NextCut(text, from, std::min(size, from + options_.chunk_bytes));
      if (!pool) {
        Accept(ScanChunk(scanner_, text, cut, next), file);
      } else {
        const auto accept = [&](ChunkScan&& scan) { Accept(std::move(scan), file); };
        pool->Submit({cut, next, cut == 0 ? scanner_ : scanner_.InEventArray(cut, bare_array)},
                     accept);
        while (pool->TakeNext(done, /*wait=*/false)) accept(std::move(done));
      }
      cut = next;
    }
    while (pool && pool->TakeNext(done, /*wait=*/true)) Accept(std::move(done), file);
    scanner_.Finish(*this);
    Flush();  // an event cut off by the file's end, as Skipped counts it
  }

  // Takes the chunk that follows what was read into the store, once its start state is checked.
  void Accept(ChunkScan scan, MappedFile& file) {
    if (!scan.start.SameStateAs(scanner_)) {
      // The guess was wrong (the cut was inside an event or a string, or before the events):
      // the chunk is scanned again from the real state.
      scan = ScanChunk(scanner_, file.data(), scan.begin, scan.end);
      ++store_.stats.chunks_scanned_again;
    }
    ++store_.stats.chunks;
    if (scan.error) std::rethrow_exception(scan.error);
    for (const FoundMember& member : scan.members) {
      KeepMember(member.key,
                 std::string_view(file.data() + member.begin, member.end - member.begin),
                 member.begin);
    }
    MergeCounted(std::move(scan.parsed));
    scanner_ = std::move(scan.after);
    file.Release(scanner_.RetainFrom());
  }

  // A compressed file: inflated block by block, ahead on a thread of its own where there are
  // parsers (on one thread, by this one), and scanned on this thread; the events are parsed by a
  // pool of threads, batch by batch, or on one thread as they are scanned (EventAt).
  void ReadBlocks() {
    std::unique_ptr<GzipStream> input = GzipStream::Open(store_.path);
    if (threads_ > 1) {
      input = std::make_unique<ReadAheadStream>(std::move(input), options_.block_bytes);
    }
    store_.stats.file_bytes = input->file_bytes();
    store_.stats.compressed = true;
    store_.stats.inflater = InflaterName();
    if (threads_ > 1) {
      parsers_ = std::make_unique<OrderedPool<Batch, ParsedBatch>>(threads_, [](Batch& batch) {
        ParsedBatch parsed = ParseBatch(batch);
        batch.block.reset();  // the block returns to the pool as soon as no batch needs it
        return parsed;
      });
    }
    std::shared_ptr<Block> previous;
    while (true) {
      std::shared_ptr<Block> block = NextBlock(previous);
      const std::size_t got = input->Read(block->data.data() + block->size, options_.block_bytes);
      if (got == 0) break;
      block->size += got;
      store_.stats.json_bytes += got;
      CheckInflatedSize();
      block_ = block;
      scanner_.Scan(block->data.data(), block->offset, block->size, *this);
      Flush();  // a batch never spans two blocks
      TakeParsed(/*wait=*/false);
      previous = std::move(block);
    }
    scanner_.Finish(*this);
    Flush();
    block_.reset();
    TakeParsed(/*wait=*/true);
  }

  // A block that starts with the text the scanner still needs from `previous` (no more than
  // max_event_bytes: the scanner refuses to need more).
  std::shared_ptr<Block> NextBlock(const std::shared_ptr<Block>& previous) {
    const std::uint64_t retain = previous ? scanner_.RetainFrom() : 0;
    const std::size_t carry =
        previous ? static_cast<std::size_t>(previous->offset + previous->size - retain) : 0;
    std::shared_ptr<Block> block = blocks_.Get(carry + options_.block_bytes);
    if (carry > 0) {
      std::memcpy(block->data.data(), previous->data.data() + (retain - previous->offset), carry);
    }
    block->size = carry;
    block->offset = retain;
    return block;
  }

  // One more event of `bytes` in the batch (or a skipped element): parsed already without
  // parsers, else to be.
  void Added(std::size_t bytes) {
    batch_.bytes += bytes;
    ++batch_events_;
    if (batch_.bytes >= kBatchBytes || batch_events_ >= kBatchEvents) Flush();
  }

  void Flush() {
    if (batch_events_ == 0) return;
    if (parsers_) {
      batch_.block = block_;
      parsers_->Submit(std::move(batch_),
                       [this](ParsedBatch&& parsed) { MergeCounted(std::move(parsed)); });
    } else {
      const std::size_t parsed = parsed_.chunk.size();
      MergeCounted(std::move(parsed_));
      // A trace's batches hold about as many events each: room for the last one's is made at
      // once, rather than grown to by copying (and held with the slack of growing).
      parsed_ = ParsedBatch{};
      Reserve(parsed_.chunk, parsed);
    }
    batch_ = Batch{};
    batch_events_ = 0;
  }

  void TakeParsed(bool wait) {
    if (!parsers_) return;
    ParsedBatch parsed;
    while (parsers_->TakeNext(parsed, wait)) MergeCounted(std::move(parsed));
  }

  void MergeCounted(ParsedBatch&& parsed) {
    Merge(std::move(parsed), store_);
    CheckEventCount();
  }

  void CheckEventCount() const {
    const std::uint64_t seen = store_.stats.events + store_.stats.skipped_events;
    if (seen > options_.max_events) {
      throw TraceError(store_.path, "more than " + std::to_string(options_.max_events) +
                                        " events, the most one trace may hold (docs/security.md)");
    }
  }

  void CheckInflatedSize() const {
    const std::uint64_t bound = options_.max_inflation * store_.stats.file_bytes;
    if (store_.stats.json_bytes > bound) {
      throw TraceError(store_.path, "inflates to more than " +
                                        std::to_string(options_.max_inflation) +
                                        " times its compressed size (" +
                                        std::to_string(bound) + " bytes), the most a trace may "
                                        "(docs/security.md)");
    }
  }

  const ReadOptions options_;
  const int threads_;
  DocumentScanner scanner_;  // the real state, after the text read into the store
  TraceStore store_;
  BlockPool blocks_;  // before parsers_: batches in the pool hold blocks that return here
  std::unique_ptr<OrderedPool<Batch, ParsedBatch>> parsers_;
  std::shared_ptr<Block> block_;  // the block being scanned
  Batch batch_;                   // with parsers: the events they are to parse
  ParsedBatch parsed_;            // without: the events parsed as the scanner met them
  std::size_t batch_events_ = 0;  // in batch_ or parsed_
};

}  // namespace

int DefaultReaderThreads() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) return std::max(1, CPU_COUNT(&cpus));
  return std::max(1u, std::thread::hardware_concurrency());
}

TraceStore ReadTrace(const std::string& path, const ReadOptions& options) {
  return Reader(path, options).Run();
}

}  // namespace advisor
