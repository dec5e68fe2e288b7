// RepLineage: the handle both faces pass to every memtable of a sequence,
// and what memrep.Auto records there and reads back.
#include "auto/lineage.h"

#include <algorithm>
#include <utility>

#include "auto/learned_file.h"

namespace memrep {

RepLineage::RepLineage(uint32_t id) : state_(std::make_shared<State>(id)) {}
RepLineage::~RepLineage() = default;

uint32_t RepLineage::id() const { return state_->id; }

RepLineage::State::~State() {
  concurrency::MutexLock lock(&mu);
  if (learned_file.empty()) return;
  // What the newest memtable measured, and every final figure come in.
  if (newest != nullptr) auto_rep::LearnFrom(newest->Snapshot(), newest_rep, &book);
  Harvest();
  (void)Save();
}

void RepLineage::State::Harvest() {
  for (auto it = pending.begin(); it != pending.end();) {
    if (it->recorder->BackgroundFinal() &&
        auto_rep::LearnFinal(it->recorder->Snapshot(), it->replaced, it->rep, &book)) {
      it = pending.erase(it);
    } else {
      ++it;
    }
  }
}

std::string RepLineage::State::Save() {
  if (learned_file.empty() || counters.memtables == 0) return std::string();
  saved_at = counters.memtables;
  auto_rep::Learned learned;
  learned.settled = settled;
  learned.book = book;
  const Status s = auto_rep::SaveLearned(learned_file, id, learned);
  return s.ok() ? std::string() : s.message();
}

void RepLineage::State::Record(AutoDecision decision) {
  AutoCounters& c = counters;
  ++c.memtables;
  if (decision.switched) ++c.switches;
  if (decision.trial) ++c.trials;
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
         d.previous + (d.trial ? ", a trial" : "") + "): " + d.reason;
}

CostBook CostBookOf(const RepLineage& lineage) {
  const RepLineage::State& state = *lineage.state();
  concurrency::MutexLock lock(&state.mu);
  return state.book;
}

}  // namespace auto_rep

}  // namespace memrep
