// RepLineage: the handle both faces pass to every memtable of a sequence,
// and what memrep.Auto records there and reads back.
#include "auto/lineage.h"

#include <algorithm>
#include <utility>

namespace memrep {

RepLineage::RepLineage() : state_(std::make_shared<State>()) {}
RepLineage::~RepLineage() = default;

void RepLineage::State::Record(AutoDecision decision) {
  AutoCounters& c = counters;
  ++c.memtables;
  if (decision.switched) ++c.switches;
  auto it = std::find_if(c.per_rep.begin(), c.per_rep.end(),
                         [&](const auto& p) { return p.first == decision.rep; });
  if (it == c.per_rep.end()) {
    c.per_rep.emplace_back(decision.rep, 1);
  } else {
    ++it->second;
  }
  if (c.recent.size() == kRecentDecisions) c.recent.erase(c.recent.begin());
  c.recent.push_back(std::move(decision));
}

AutoCounters AutoCountersOf(const RepLineage& lineage) {
  const RepLineage::State& state = *lineage.state();
  concurrency::MutexLock lock(&state.mu);
  return state.counters;
}

WorkloadStats NewestStatsOf(const RepLineage& lineage) {
  const RepLineage::State& state = *lineage.state();
  concurrency::MutexLock lock(&state.mu);
  return state.newest != nullptr ? state.newest->Snapshot() : WorkloadStats{};
}

namespace auto_rep {

std::string DescribeNewestDecision(const RepLineage& lineage) {
  const RepLineage::State& state = *lineage.state();
  concurrency::MutexLock lock(&state.mu);
  if (state.counters.recent.empty()) return std::string();
  const AutoDecision& d = state.counters.recent.back();
  return std::string(AutoOptions::kName) + ": memtable " + std::to_string(d.memtable) + " uses " +
         d.rep + " (" +
         (d.previous.empty() ? "the first" : (d.switched ? "switched from " : "kept after ")) +
         d.previous + "): " + d.reason;
}

}  // namespace auto_rep

}  // namespace memrep
