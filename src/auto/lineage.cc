// RepLineage: the handle both faces pass to every memtable of a sequence,
// and memrep.Auto's readers of what it keeps there.
#include "auto/lineage.h"

namespace memrep {

RepLineage::RepLineage() : state_(std::make_shared<State>()) {}
RepLineage::~RepLineage() = default;

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
