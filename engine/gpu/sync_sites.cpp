#include "engine/gpu/sync_sites.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "engine/gpu/cuda_api_names.h"
#include "engine/gpu/op_lookup.h"

namespace advisor {
namespace {

// Which name a wait seen several ways takes: the runtime call the user's stack made, else the
// driver call, else CUPTI's record.
enum class Witness { kSyncRecord = 0, kDriverCall = 1, kRuntimeCall = 2 };

struct Wait {
  TimeNs start = 0;
  TimeNs end = 0;
  std::uint64_t external_id = 0;
  std::string kind;
  Witness witness = Witness::kSyncRecord;
};

const char* DirectionName(MemcpyKind kind) {
  switch (kind) {
    case MemcpyKind::kHostToDevice:
      return "H2D";
    case MemcpyKind::kDeviceToHost:
      return "D2H";
    case MemcpyKind::kDeviceToDevice:
      return "D2D";
    case MemcpyKind::kOther:
      break;
  }
  return "other";
}

const char* SyncRecordKind(SyncKind kind) {
  switch (kind) {
    case SyncKind::kStream:
      return "stream synchronize";
    case SyncKind::kDevice:
    case SyncKind::kContext:
      return "device synchronize";
    case SyncKind::kEvent:
      return "event synchronize";
    case SyncKind::kStreamWaitEvent:
    case SyncKind::kOther:
      break;
  }
  return "synchronize";
}

// "blocking memcpy D2H" for a blocking copy call whose copy ran while it waited.
std::string BlockingCopyKind(
    const ApiCallEvent& call,
    const std::unordered_multimap<std::uint64_t, const MemcpyEvent*>& copies) {
  const auto [first, last] = copies.equal_range(call.external_id);
  for (auto it = first; it != last; ++it) {
    const MemcpyEvent& copy = *it->second;
    if (copy.start_ns >= call.start_ns && copy.start_ns <= call.end_ns) {
      return std::string("blocking memcpy ") + DirectionName(copy.kind);
    }
  }
  return call.name;
}

std::vector<Wait> CollectWaits(const Timeline& timeline) {
  std::unordered_multimap<std::uint64_t, const MemcpyEvent*> copies_by_op;
  for (const MemcpyEvent& copy : timeline.memcpys) {
    if (copy.external_id != 0) copies_by_op.emplace(copy.external_id, &copy);
  }
  std::vector<Wait> waits;
  for (const ApiCallEvent& call : timeline.api_calls) {
    const auto wait = HostWaitOf(call.name);
    if (!wait || call.external_id == 0) continue;
    const std::string kind =
        *wait == HostWaitKind::kBlockingMemcpy ? BlockingCopyKind(call, copies_by_op) : call.name;
    waits.push_back({call.start_ns, call.end_ns, call.external_id, kind,
                     call.driver ? Witness::kDriverCall : Witness::kRuntimeCall});
  }
  for (const SyncEvent& sync : timeline.syncs) {
    // A stream waiting on an event holds up the device, not the host.
    if (sync.kind == SyncKind::kStreamWaitEvent || sync.external_id == 0) continue;
    waits.push_back({sync.start_ns, sync.end_ns, sync.external_id, SyncRecordKind(sync.kind),
                     Witness::kSyncRecord});
  }
  return waits;
}

// Overlapping waits of one op are one wait; its length is their union.
std::vector<Wait> MergeWitnesses(std::vector<Wait> waits) {
  std::sort(waits.begin(), waits.end(), [](const Wait& a, const Wait& b) {
    return std::tie(a.external_id, a.start) < std::tie(b.external_id, b.start);
  });
  std::vector<Wait> merged;
  for (const Wait& wait : waits) {
    if (!merged.empty() && merged.back().external_id == wait.external_id &&
        wait.start <= merged.back().end) {
      Wait& current = merged.back();
      current.end = std::max(current.end, wait.end);
      if (wait.witness > current.witness) {
        current.kind = wait.kind;
        current.witness = wait.witness;
      }
    } else {
      merged.push_back(wait);
    }
  }
  return merged;
}

}  // namespace

std::vector<SyncSite> FindSyncSites(const Timeline& timeline, const OpPlacements& placements) {
  const std::vector<Wait> waits = MergeWitnesses(CollectWaits(timeline));
  if (waits.empty()) return {};  // as a CPU run: no op to look up
  const OpLookup lookup(timeline);
  const int steps = std::max<int>(1, static_cast<int>(timeline.steps.size()));

  struct Total {
    int count = 0;
    TimeNs wait_ns = 0;
  };
  std::map<std::tuple<std::string, ModulePath, std::string, Phase>, Total> totals;
  for (const Wait& wait : waits) {
    const auto origin = OriginOf(wait.external_id, lookup, timeline, placements);
    if (!origin || origin->step < 0) continue;
    Total& total = totals[{wait.kind, origin->module, origin->op, origin->phase}];
    ++total.count;
    total.wait_ns += wait.end - wait.start;
  }

  std::vector<SyncSite> sites;
  for (const auto& [key, total] : totals) {
    SyncSite site;
    const auto& [kind, module, op, phase] = key;
    site.kind = kind;
    site.path = module.Shown();
    site.op = op;
    site.phase = PhaseName(phase);
    // Rounded, but a site that happened at all shows at least once per step.
    site.count_per_step = std::max(1, static_cast<int>(std::lround(double(total.count) / steps)));
    site.wait_ms = total.wait_ns * 1e-6 / steps;
    sites.push_back(std::move(site));
  }
  std::stable_sort(sites.begin(), sites.end(),
                   [](const SyncSite& a, const SyncSite& b) { return a.wait_ms > b.wait_ms; });
  return sites;
}

}  // namespace advisor
