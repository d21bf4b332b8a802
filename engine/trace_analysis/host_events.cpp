#include "engine/trace_analysis/host_events.h"

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "engine/trace_analysis/chunk_counts.h"
#include "engine/trace_analysis/event_names.h"
#include "engine/trace_analysis/host_chunk_records.h"
#include "engine/trace_analysis/uncategorised_labels.h"
#include "engine/util/parallel_for.h"
#include "engine/util/prefault.h"

namespace advisor {
namespace {

// record_shapes writes C++ type names: "float", "c10::BFloat16".
std::string DtypeName(const std::string& type) {
  static const std::map<std::string, std::string> kNames = {
      {"float", "float32"},
      {"double", "float64"},
      {"c10::Half", "float16"},
      {"c10::BFloat16", "bfloat16"},
      {"c10::Float8_e4m3fn", "float8_e4m3fn"}};
  auto it = kNames.find(type);
  return it == kNames.end() ? type : it->second;
}

// Add's ops come from complete events of these categories.
bool MayBeOp(const EventChunk& chunk, std::size_t i) {
  const EventCategory category = chunk.category[i];
  return chunk.phase[i] == 'X' &&
         (category == EventCategory::kCpuOp || category == EventCategory::kUserAnnotation ||
          category == EventCategory::kNone);
}

// The events of a store that may be ops (MayBeOp), the uncategorised among them, and whether any
// is numbered: HostEventReader's rooms.
struct MayBeOps {
  std::size_t ops = 0;
  std::size_t operators = 0;
  bool numbered = false;

  MayBeOps& operator+=(const MayBeOps& other) {
    ops += other.ops;
    operators += other.operators;
    numbered |= other.numbered;
    return *this;
  }
};

// Backward nodes by (thread, start), as a flow's "f" names one: of two nodes at one place, the
// later in the file.
class BackwardNodes {
 public:
  BackwardNodes(const std::vector<OpEvent>& ops, std::vector<std::size_t> nodes)
      : ops_(ops), nodes_(std::move(nodes)) {
    // A thread's nodes mostly come in start order already: checked, and sorted only if not.
    const auto by_key = [this](std::size_t a, std::size_t b) { return Key(a) < Key(b); };
    if (!std::is_sorted(nodes_.begin(), nodes_.end(), by_key)) {
      std::stable_sort(nodes_.begin(), nodes_.end(), by_key);
    }
  }

  std::optional<std::size_t> At(ThreadId thread, TimeNs start) const {
    const std::pair<ThreadId, TimeNs> key{thread, start};
    const auto after =
        std::upper_bound(nodes_.begin(), nodes_.end(), key,
                         [this](const auto& at, std::size_t node) { return at < Key(node); });
    if (after == nodes_.begin() || Key(*(after - 1)) != key) return std::nullopt;
    return *(after - 1);
  }

 private:
  std::pair<ThreadId, TimeNs> Key(std::size_t node) const {
    return {ops_[node].thread, ops_[node].start_ns};
  }

  const std::vector<OpEvent>& ops_;
  std::vector<std::size_t> nodes_;  // by Key, stably
};

template <typename T>
void Append(std::vector<T>& to, std::vector<T>& from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

class HostEventReader::Impl {
 public:
  Impl(const TraceStore& store, int threads) : store_(store), first_op_(store.chunks.size() + 1) {
    // Most events of a trace are ops: room for every one that may be is made at once (pages
    // never written are never resident), and each chunk's ops are copied into it once.
    const MayBeOps may_be = CountOverChunks<MayBeOps>(store_, threads, [](const EventChunk& chunk) {
      MayBeOps counts;
      for (std::size_t i = 0; i < chunk.size(); ++i) {
        if (!MayBeOp(chunk, i)) continue;
        counts.operators += chunk.category[i] == EventCategory::kNone;
        ++counts.ops;
        counts.numbered |= chunk.sequence_number[i] >= 0;
      }
      return counts;
    });
    may_be_operators_ = may_be.operators;
    host_.ops.reserve(may_be.ops);
    // A trace that numbers its ops numbers most of them: room for every op.
    if (may_be.numbered) host_.op_sequences.reserve(may_be.ops);
    ops_room_ = host_.ops.data();
    sequences_room_ = host_.op_sequences.data();
  }

  // Chunk k's ops follow those of chunks 0..k-1, so their place is known once those are counted,
  // not copied: the chunks' copies run on the threads that read them, side by side, and so do
  // those of a legacy trace's operators, a list a thread. Only growing the vectors over each
  // chunk's place (their new elements written, to be written again by the copy) takes one chunk
  // at a time; the pages are faulted in before, each chunk's on its thread.
  void Place(std::size_t k, HostChunkRecords& chunk) {
    const std::size_t ops = chunk.ops.size();
    const std::size_t sequences = chunk.op_sequences.size();
    struct OperatorsPlace {
      const std::vector<OperatorAt>* chunk;
      std::vector<OperatorAt>* joined;
      OperatorAt* room;   // joined's storage, which never moves
      std::size_t first;  // in `joined`
    };
    std::vector<OperatorsPlace> operators;  // of each thread the chunk holds operators of
    std::unique_lock<std::mutex> lock(place_mutex_);
    turn_.wait(lock, [&] { return counted_ == k; });
    const std::size_t first = first_op_[k];
    first_op_[k + 1] = first + ops;
    bool fits = first + ops <= host_.ops.capacity() &&
                (sequences == 0 || first + sequences <= host_.op_sequences.capacity());
    for (const auto& [thread, list] : chunk.operators) {
      const auto [joined, added] = operators_.try_emplace(thread);
      if (added) joined->second.reserve(may_be_operators_);
      std::size_t& counted = operators_counted_[thread];
      operators.push_back({&list, &joined->second, joined->second.data(), counted});
      counted += list.size();
      fits &= counted <= may_be_operators_;
    }
    ++counted_;
    lock.unlock();
    turn_.notify_all();
    // The rooms counted every event that may be an op (or an operator), so they never move: a
    // chunk holding more would have them move under the other threads' copies.
    if (fits) {
      PrefaultForWriting(ops_room_ + first, ops * sizeof(OpEvent));
      if (sequences > 0) {
        PrefaultForWriting(sequences_room_ + first, sequences * sizeof(OpSequence));
      }
      for (const OperatorsPlace& place : operators) {
        PrefaultForWriting(place.room + place.first, place.chunk->size() * sizeof(OperatorAt));
      }
    }
    lock.lock();
    turn_.wait(lock, [&] { return grown_ == k; });
    ++grown_;
    if (fits) {
      host_.ops.resize(first + ops);
      if (sequences > 0) host_.op_sequences.resize(first + sequences);
      for (const OperatorsPlace& place : operators) {
        place.joined->resize(place.first + place.chunk->size());
      }
    }
    lock.unlock();
    turn_.notify_all();
    if (!fits) throw std::logic_error("a chunk of the trace holds more ops than its events");
    std::copy(chunk.ops.begin(), chunk.ops.end(), ops_room_ + first);
    if (sequences > 0) {
      std::copy(chunk.op_sequences.begin(), chunk.op_sequences.end(), sequences_room_ + first);
    }
    for (const OperatorsPlace& place : operators) {
      const auto first_op = static_cast<std::uint32_t>(first);
      std::transform(place.chunk->begin(), place.chunk->end(), place.room + place.first,
                     [&](const OperatorAt& at) {
                       return OperatorAt{first_op + at.op, at.order};
                     });
    }
    std::vector<OpEvent>().swap(chunk.ops);
    std::vector<OpSequence>().swap(chunk.op_sequences);
    chunk.operators.clear();
  }

  // The next chunk's records after those of the chunks before it, its ops placed.
  void Add(HostChunkRecords&& chunk) {
    std::size_t first_op = 0;
    {
      std::lock_guard<std::mutex> lock(place_mutex_);
      first_op = first_op_[joined_++];
    }
    Join(std::move(chunk), first_op);
  }

  // `chunk`'s ops after those placed: the labels found to be ops, once every chunk is joined.
  void AddAfterPlaced(HostChunkRecords&& chunk) {
    const std::size_t first_op = host_.ops.size();
    host_.ops.insert(host_.ops.end(), chunk.ops.begin(), chunk.ops.end());
    if (!chunk.op_sequences.empty()) {
      std::vector<OpSequence>& sequences = host_.op_sequences;
      sequences.resize(first_op);
      sequences.insert(sequences.end(), chunk.op_sequences.begin(), chunk.op_sequences.end());
    }
    Join(std::move(chunk), first_op);
  }

  // All of `chunk` but its ops, which begin at first_op: each index into them moved past the ops
  // before.
  void Join(HostChunkRecords&& chunk, std::size_t first_op) {
    host_.has_sequence_numbers |= chunk.has_sequence_numbers;
    for (auto& [op, collective] : chunk.collective_of_op) {
      host_.collective_of_op.emplace(first_op + op + 1, std::move(collective));
    }
    for (const PendingNode& node : chunk.pending) {
      pending_.push_back({first_op + node.op, node.recorded_forward_thread});
    }
    for (std::size_t node : chunk.backward_nodes) host_.backward_nodes.push_back(first_op + node);
    Append(flow_ends_, chunk.flow_ends);
    forward_threads_.insert(chunk.forward_threads.begin(), chunk.forward_threads.end());
    for (const auto& [type, time] : chunk.compute_time_by_input_type) {
      time_by_dtype_[store_.strings[type]] += time;
    }
    Append(host_.profiler_steps, chunk.profiler_steps);
    Append(host_.optimizer_steps, chunk.optimizer_steps);
    Append(host_.data_loader, chunk.data_loader);
    Append(host_.advisor_ranges, chunk.advisor_ranges);
    Append(host_.advisor_phases, chunk.advisor_phases);
    Append(host_.advisor_windows, chunk.advisor_windows);
    Append(host_.advisor_backward_spans, chunk.advisor_backward_spans);
    Append(host_.modules, chunk.modules);
    for (auto& [thread, labels] : chunk.labels) Append(labels_[thread], labels);
  }

  HostEvents Finish(int threads) {
    PlaceUncategorisedLabels(threads);
    LinkBackwardThreads(threads);
    TimeNs most = 0;
    for (const auto& [type, time] : time_by_dtype_) {
      if (time > most) {
        most = time;
        host_.compute_dtype = DtypeName(type);
      }
    }
    return std::move(host_);
  }

 private:
  // The legacy exporter's uncategorised labels, each thread's placed among its operators
  // (uncategorised_labels.h): the labels found to be ops, and the modules, added as chunks'.
  void PlaceUncategorisedLabels(int threads) {
    for (auto& [thread, labels] : labels_) {
      for (HostChunkRecords& placed : PlaceThreadLabels(host_.ops, store_.strings, thread,
                                                        operators_[thread], labels, threads)) {
        AddAfterPlaced(std::move(placed));
      }
    }
  }

  // Backward nodes name the forward thread by RecordFunction's number for it ("Fwd thread id":
  // 1), not by the thread id the trace uses. Each forward-backward flow shows both for one node;
  // a trace without flows whose forward ops all ran on one thread names it too.
  void LinkBackwardThreads(int threads) {
    std::map<std::int64_t, ThreadId> thread_of;
    // Each flow, by id, from its last "s" to its last "f": sorted by id, in file order within one.
    const auto by_id = [](const FlowEnd& a, const FlowEnd& b) { return a.id < b.id; };
    if (!std::is_sorted(flow_ends_.begin(), flow_ends_.end(), by_id)) {
      std::stable_sort(flow_ends_.begin(), flow_ends_.end(), by_id);
    }
    const BackwardNodes nodes(
        host_.ops, flow_ends_.empty() ? std::vector<std::size_t>{} : host_.backward_nodes);
    // The flows in blocks (each beginning with a flow's first end) on up to `threads` threads,
    // each block's links kept where first found, then merged in block order: those one pass over
    // every flow keeps.
    constexpr std::size_t kFlowEndsPerBlock = 16384;
    const std::size_t ends = flow_ends_.size();
    const auto flow_start = [&](std::size_t i) {
      for (i = std::min(i, ends); i > 0 && i < ends && flow_ends_[i].id == flow_ends_[i - 1].id;) {
        ++i;
      }
      return i;
    };
    std::vector<std::map<std::int64_t, ThreadId>> found((ends + kFlowEndsPerBlock - 1) /
                                                        kFlowEndsPerBlock);
    ParallelFor(found.size(), threads, [&](std::size_t block) {
      const std::size_t stop = flow_start((block + 1) * kFlowEndsPerBlock);
      for (std::size_t first = flow_start(block * kFlowEndsPerBlock), end = 0; first < stop;
           first = end) {
        const FlowEnd* start = nullptr;
        const FlowEnd* finish = nullptr;
        for (end = first; end < ends && flow_ends_[end].id == flow_ends_[first].id; ++end) {
          (flow_ends_[end].start ? start : finish) = &flow_ends_[end];
        }
        if (start == nullptr || finish == nullptr) continue;
        const std::optional<std::size_t> node = nodes.At(finish->thread, finish->at);
        if (!node) continue;
        // pending_ is in op order, an op once.
        const auto pending = std::lower_bound(
            pending_.begin(), pending_.end(), *node,
            [](const PendingNode& pending, std::size_t op) { return pending.op < op; });
        if (pending != pending_.end() && pending->op == *node) {
          found[block].emplace(pending->recorded_forward_thread, start->thread);
        }
      }
    });
    for (std::map<std::int64_t, ThreadId>& links : found) thread_of.merge(links);
    if (thread_of.empty() && forward_threads_.size() == 1) {
      for (const PendingNode& pending : pending_) {
        thread_of.emplace(pending.recorded_forward_thread, *forward_threads_.begin());
      }
    }
    std::size_t linked = 0;
    for (const PendingNode& pending : pending_) {
      auto it = thread_of.find(pending.recorded_forward_thread);
      if (it == thread_of.end()) continue;
      host_.op_sequences[pending.op].forward_thread = it->second;
      ++linked;
    }
    host_.backward_linked = linked > 0;
    if (!host_.has_sequence_numbers) {
      host_.notes.push_back(
          "the trace has no sequence numbers (LibTorch without Kineto writes none): backward ops "
          "are not linked to their forward ops, so they count outside every module");
    } else if (linked < pending_.size()) {
      host_.notes.push_back(std::to_string(pending_.size() - linked) + " of " +
                            std::to_string(pending_.size()) +
                            " backward nodes name a forward thread the trace does not show; "
                            "they count outside every module");
    }
  }

  const TraceStore& store_;
  HostEvents host_;
  // The storage reserved for the ops and their sequences, which never moves.
  OpEvent* ops_room_ = nullptr;
  OpSequence* sequences_room_ = nullptr;
  // Where each chunk's ops begin (first_op_[k]), and how far the chunks have come: counted (their
  // places known), grown over (the vectors sized to hold them), joined (Add).
  std::vector<std::size_t> first_op_;
  std::size_t counted_ = 0;
  std::size_t grown_ = 0;
  std::size_t joined_ = 0;
  std::mutex place_mutex_;
  std::condition_variable turn_;      // a chunk's turn to be counted, or grown over
  std::vector<PendingNode> pending_;  // in op order
  std::vector<FlowEnd> flow_ends_;    // in file order
  std::set<ThreadId> forward_threads_;
  std::map<std::string, TimeNs> time_by_dtype_;  // compute ops' time by their first input's type
  // The uncategorised operators by thread, each list placed as ops are (Place), with room for
  // every uncategorised event that may be one.
  std::map<ThreadId, std::vector<OperatorAt>> operators_;
  std::map<ThreadId, std::size_t> operators_counted_;  // by the chunks counted
  std::size_t may_be_operators_ = 0;
  std::map<ThreadId, std::vector<Label>> labels_;  // uncategorised labels by thread
};

HostEventReader::HostEventReader(const TraceStore& store, int threads)
    : impl_(std::make_unique<Impl>(store, threads)) {}

HostEventReader::~HostEventReader() = default;

void HostEventReader::Place(std::size_t k, HostChunkRecords& chunk) { impl_->Place(k, chunk); }

void HostEventReader::Add(HostChunkRecords&& chunk) { impl_->Add(std::move(chunk)); }

HostEvents HostEventReader::Finish(int threads) { return impl_->Finish(threads); }

HostEvents ReadHostEvents(const TraceStore& store) {
  const HostChunkReader chunks(store);
  HostEventReader reader(store);
  std::uint32_t order = 0;
  for (std::size_t k = 0; k < store.chunks.size(); ++k) {
    HostChunkRecords records = chunks.Read(store.chunks[k], order);
    reader.Place(k, records);
    reader.Add(std::move(records));
    order += static_cast<std::uint32_t>(store.chunks[k].size());
  }
  return reader.Finish(1);
}

std::optional<CollectiveDescription> CollectiveOf(const TraceStore& store, const EventChunk& chunk,
                                                  std::size_t i) {
  const std::uint32_t extra = chunk.extra[i];
  if (extra == EventChunk::kNoExtra || !chunk.extras[extra].has_collective) return std::nullopt;
  const CollectiveArgs& args = chunk.extras[extra].collective;
  return CollectiveDescription{store.strings[args.name], store.strings[args.process_group],
                               args.seq == kAbsent ? -1 : args.seq};
}

}  // namespace advisor
