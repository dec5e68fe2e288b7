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

}  // namespace memrep
