// AutoRep: a memtable of memrep.Auto. It holds the rep the policy chose for
// it and forwards every call there, counting what was asked in a
// WorkloadRecorder that the lineage reads when the next memtable is made.
//
// The counting adds to each call one virtual call, a thread-local load and a
// store or two to the thread's own cache line; an iterator counts in its own
// fields and hands its counts over at each positioning call and when it is
// destroyed. One call in a few of each kind (a thread-local tick says which)
// is timed with two clock reads (auto/clock.h) and its time added to the
// thread's line. docs/auto.md, "The cost of keeping statistics", says what
// that costs.
#pragma once

#include <memory>

#include "auto/workload_recorder.h"
#include "memrep/rep.h"

namespace memrep::auto_rep {

class AutoRep final : public Rep {
 public:
  AutoRep(std::unique_ptr<Rep> inner, std::shared_ptr<WorkloadRecorder> recorder);
  ~AutoRep() override;

  Status Allocate(size_t len, KeyHandle* handle, char** row) override;
  bool Insert(KeyHandle handle) override;
  bool InsertConcurrently(KeyHandle handle) override;
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  bool Contains(std::string_view internal_key) const override;
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const override {
    return inner_->RandomSample(target, seed, out);
  }

  Status Add(const EntryView& entry, bool concurrent) override;
  Status AddBatch(std::span<const EntryView> entries, bool concurrent) override;
  void Get(std::string_view internal_key, void* arg, EntryCallback callback) const override;
  void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                MultiEntryCallback callback) const override;
  void MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                    MultiRowCallback callback) const override;
  void ProbedRows(std::string_view internal_key, void* arg, RowCallback callback) const override {
    inner_->ProbedRows(internal_key, arg, callback);
  }

  std::unique_ptr<RepIterator> NewIterator() const override;
  void Freeze() override { inner_->Freeze(); }
  Status FreezeResult() const override { return inner_->FreezeResult(); }
  bool frozen() const override { return inner_->frozen(); }
  size_t MemoryUsage() const override { return inner_->MemoryUsage(); }
  bool NearlyFull() const override { return inner_->NearlyFull(); }
  uint64_t NumEntries() const override { return inner_->NumEntries(); }
  uint64_t BackgroundCpuNanos() const override { return inner_->BackgroundCpuNanos(); }
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override {
    return inner_->ApproximateNumEntries(start, end);
  }

 private:
  // The rows face samples a key at its insert: a sampled Allocate leaves
  // its row pending on the thread, and the thread's next Insert on this rep
  // (the one for that row: the caller writes a row, then inserts it) reads
  // its key. `id_` tells this rep's pending row from another rep's (rows are
  // pinned for the rep's life, so the pointer is valid while the ids match).
  void SamplePendingRow();

  const std::unique_ptr<Rep> inner_;
  const std::shared_ptr<WorkloadRecorder> recorder_;
  const uint64_t id_;
};

}  // namespace memrep::auto_rep
