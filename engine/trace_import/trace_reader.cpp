#include "engine/trace_import/trace_reader.h"

#include <sched.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/trace_import/document_scanner.h"
#include "engine/trace_import/event_parser.h"
#include "engine/trace_import/input_stream.h"
#include "engine/trace_import/trace_error.h"
#include "engine/trace_import/trace_metadata.h"

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
  std::uint64_t sequence = 0;
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

ParsedBatch ParseBatch(const Batch& batch) {
  ParsedBatch parsed;
  Reserve(parsed.chunk, batch.events.size());
  const char* text = batch.block->data.data();
  for (const auto& [start, length] : batch.events) {
    ParseEvent(text + start, text + start + length, batch.block->offset + start, parsed);
  }
  return parsed;
}

// Parser threads with a bounded queue, so that reading never runs far ahead of parsing.
class ParserPool {
 public:
  explicit ParserPool(int threads) : capacity_(static_cast<std::size_t>(threads) * 2) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~ParserPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  void Submit(Batch batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [this] { return queue_.size() < capacity_; });
    queue_.push_back(std::move(batch));
    ++submitted_;
    work_ready_.notify_one();
  }

  // The next batch in sequence when it is parsed (waiting for it when `wait`); false when it is
  // not parsed yet or every submitted batch was taken.
  bool TakeNext(ParsedBatch& out, bool wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (taken_ == submitted_) return false;
    if (wait) result_ready_.wait(lock, [this] { return failure_ || results_.count(taken_) > 0; });
    if (failure_) std::rethrow_exception(failure_);
    auto it = results_.find(taken_);
    if (it == results_.end()) return false;
    out = std::move(it->second);
    results_.erase(it);
    ++taken_;
    return true;
  }

 private:
  void Work() {
    while (true) {
      Batch batch;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
      }
      room_.notify_one();
      try {
        ParsedBatch parsed = ParseBatch(batch);
        batch.block.reset();  // the block returns to the pool as soon as no batch needs it
        std::lock_guard<std::mutex> lock(mutex_);
        results_.emplace(batch.sequence, std::move(parsed));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!failure_) failure_ = std::current_exception();
      }
      result_ready_.notify_all();
    }
  }

  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable room_;
  std::condition_variable result_ready_;
  std::deque<Batch> queue_;
  std::map<std::uint64_t, ParsedBatch> results_;
  std::uint64_t submitted_ = 0;
  std::uint64_t taken_ = 0;
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

void AddProblem(ReadStats& stats, std::string problem) {
  if (stats.problems.size() < kProblemsKept) stats.problems.push_back(std::move(problem));
}

// Moves a parsed batch into the store: its strings join the store's table.
void Merge(ParsedBatch&& parsed, TraceStore& store) {
  std::vector<std::uint32_t> global;
  global.reserve(parsed.strings.size());
  for (std::uint32_t id = 0; id < parsed.strings.size(); ++id) {
    global.push_back(store.strings.Intern(parsed.strings[id]));
  }
  EventChunk& chunk = parsed.chunk;
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

class Reader : public ScanSink {
 public:
  Reader(const std::string& path, const ReadOptions& options)
      : options_(options),
        threads_(options.threads > 0 ? options.threads : DefaultReaderThreads()),
        scanner_(path) {
    store_.path = path;
    if (threads_ > 1) pool_ = std::make_unique<ParserPool>(threads_);
  }

  TraceStore Run() {
    const std::unique_ptr<InputStream> input = InputStream::Open(store_.path);
    store_.stats.file_bytes = input->file_bytes();
    store_.stats.compressed = input->compressed();
    std::shared_ptr<Block> previous;
    std::uint64_t json_bytes = 0;
    while (true) {
      std::shared_ptr<Block> block = NextBlock(previous);
      const std::size_t got = input->Read(block->data.data() + block->size, options_.block_bytes);
      if (got == 0) break;
      block->size += got;
      json_bytes += got;
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
    store_.stats.json_bytes = json_bytes;
    store_.stats.truncated = scanner_.truncated();
    if (scanner_.truncated()) {
      AddProblem(store_.stats, "byte " + std::to_string(json_bytes) +
                                   ": the file ends inside the event array (cut off?); the "
                                   "events before were read");
    }
    store_.metadata.has_trace_events_object = !scanner_.top_level_array();
    return std::move(store_);
  }

  void Event(std::uint64_t begin, std::uint64_t end) override {
    const auto start = static_cast<std::uint32_t>(begin - block_->offset);
    const auto length = static_cast<std::uint32_t>(end - begin);
    batch_.events.emplace_back(start, length);
    batch_.bytes += length;
    if (batch_.bytes >= kBatchBytes || batch_.events.size() >= kBatchEvents) Flush();
  }

  void Skipped(std::uint64_t begin, const char* problem) override {
    ++store_.stats.skipped_events;
    AddProblem(store_.stats, "byte " + std::to_string(begin) + ": " + problem +
                                 "; the event is skipped");
  }

  void Member(const std::string& key, std::uint64_t begin, std::uint64_t end) override {
    const std::string_view text(block_->data.data() + (begin - block_->offset), end - begin);
    std::vector<std::string> problems;
    ReadMetadataMember(key, text, begin, store_.metadata, problems);
    for (std::string& problem : problems) AddProblem(store_.stats, std::move(problem));
  }

 private:
  // A block that starts with the text the scanner still needs from `previous`.
  std::shared_ptr<Block> NextBlock(const std::shared_ptr<Block>& previous) {
    std::uint64_t retain = 0;
    std::size_t carry = 0;
    if (previous) {
      retain = scanner_.RetainFrom();
      carry = static_cast<std::size_t>(previous->offset + previous->size - retain);
      if (carry > options_.max_event_bytes) {
        throw TraceError(store_.path, retain,
                         "an event larger than " + std::to_string(options_.max_event_bytes >> 20) +
                             " MiB: not a trace this reader accepts");
      }
    }
    std::shared_ptr<Block> block = blocks_.Get(carry + options_.block_bytes);
    if (carry > 0) {
      std::memcpy(block->data.data(), previous->data.data() + (retain - previous->offset), carry);
    }
    block->size = carry;
    block->offset = previous ? retain : 0;
    return block;
  }

  void Flush() {
    if (batch_.events.empty()) return;
    batch_.sequence = next_sequence_++;
    batch_.block = block_;
    if (pool_) {
      pool_->Submit(std::move(batch_));
    } else {
      Merge(ParseBatch(batch_), store_);
    }
    batch_ = Batch{};
  }

  void TakeParsed(bool wait) {
    if (!pool_) return;
    ParsedBatch parsed;
    while (pool_->TakeNext(parsed, wait)) Merge(std::move(parsed), store_);
  }

  const ReadOptions options_;
  const int threads_;
  DocumentScanner scanner_;
  TraceStore store_;
  BlockPool blocks_;  // before pool_: batches in the pool hold blocks that return here
  std::unique_ptr<ParserPool> pool_;
  std::shared_ptr<Block> block_;  // the block being scanned
  Batch batch_;
  std::uint64_t next_sequence_ = 0;
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
