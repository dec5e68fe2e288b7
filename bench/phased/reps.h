// The reps memrep_phased runs: their factories, and what it watches of
// them while a run goes (memtable switches, memrep.Auto's choices).
#pragma once

#include <rocksdb/listener.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/status.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "flags.h"
#include "memrep/auto.h"
#include "memrep/rocksdb.h"

namespace memrep::phased {

namespace rdb = ROCKSDB_NAMESPACE;

// Whether `spec` (a name, an alias or an options string) names a rep that
// chooses another rep per memtable (memrep.Auto), as the registry says
// (RepInfo::chooses_per_memtable); false for skip_list and for a bad spec.
bool IsAuto(std::string_view spec);

// A new factory for `spec`: RocksDB's skip list, or one of memrep's. Every run
// gets a new factory, so memrep.Auto starts each run without history.
rdb::Status NewFactory(const std::string& spec, std::shared_ptr<rdb::MemTableRepFactory>* out);

// Checks that every rep's factory can be made; then prints each one's name.
bool CheckReps(const Flags& flags, std::string* error);

// Whether `factory` is memrep.Auto's, whose choices can be read.
bool HasAutoCounters(const rdb::MemTableRepFactory& factory);

// Counts memtable switches. RocksDB calls it on the thread that switches
// (the writer here).
class SwitchCounter final : public rdb::EventListener {
 public:
  void OnMemTableSealed(const rdb::MemTableInfo& /*info*/) override {
    sealed_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t sealed() const { return sealed_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> sealed_{0};
};

// One memtable's rep, as memrep.Auto chose it.
struct Choice {
  std::string rep;
  bool switched = false;
  std::string reason;  // the decision's reason, as the LOG line gives it
};

// memrep.Auto's decisions of one run, by memtable index. Auto keeps only its
// last 64 decisions, so the writer polls every kPollEverySwitches switches.
class AutoTracker {
 public:
  AutoTracker(const rdb::MemTableRepFactory* factory, bool enabled)
      : factory_(factory), enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  // Called by the writer between operations: cheap unless a poll is due.
  rdb::Status MaybePoll(uint64_t sealed) {
    if (!enabled_ || sealed - polled_at_ < kPollEverySwitches) return rdb::Status::OK();
    polled_at_ = sealed;
    return Poll();
  }
  rdb::Status Poll() {
    if (!enabled_) return rdb::Status::OK();
    memrep::AutoCounters counters;
    rdb::Status s = memrep::rocksdb_plugin::GetAutoCounters(*factory_, &counters);
    if (!s.ok()) return s;
    memtables_ = counters.memtables;
    for (const memrep::AutoDecision& d : counters.recent) {
      choices_[d.memtable] = Choice{d.rep, d.switched, d.reason};
    }
    return rdb::Status::OK();
  }
  uint64_t memtables() const { return memtables_; }
  const std::map<uint64_t, Choice>& choices() const { return choices_; }

 private:
  const rdb::MemTableRepFactory* factory_;
  bool enabled_;
  uint64_t polled_at_ = 0;
  uint64_t memtables_ = 0;
  std::map<uint64_t, Choice> choices_;
};

}  // namespace memrep::phased
