#include "auto/auto_rep.h"

#include <array>
#include <atomic>

#include "auto/clock.h"
#include "format/key_order.h"

namespace memrep::auto_rep {
namespace {

using Counter = WorkloadRecorder::Counter;
using Timed = WorkloadRecorder::Timed;

// Which calls are timed: one in kTimeEvery of each kind on each thread (one
// in kTimeStepEvery steps, which are many and cheap), counted in
// thread-local ticks. Primes, so that a workload's own period (16 steps a
// scan, 4 writes a scan) does not make the same position of it the timed one
// every time. Batches are few and long: each is timed.
constexpr std::array<uint32_t, WorkloadRecorder::kTimedKinds> kTimeEvery = {
    31, 31, 1, 31, 1 /* gets: those CountGet samples */, 31, 61, 31};
// One call of MultiGet in this many is timed, as that many gets.
constexpr uint32_t kTimeMultiGetEvery = 31;

// A pending row of the rows face: a row a sampled Allocate handed out on
// this thread, and the id of the rep that handed it out.
struct PendingRow {
  uint64_t rep = 0;
  const char* row = nullptr;
};

// Everything AutoRep keeps per thread, in one constant-initialized
// initial-exec thread-local: each call reaches it with a load off the
// thread pointer, not a __tls_get_addr call per variable (the library is
// position-independent, where the default TLS model calls it).
struct ThreadState {
  std::array<uint32_t, WorkloadRecorder::kTimedKinds> time_ticks;
  uint32_t multiget_tick;
  PendingRow pending_row;
};
[[gnu::tls_model("initial-exec")]] constinit thread_local ThreadState mine{};

bool TimeThis(Timed kind) {
  uint32_t& tick = mine.time_ticks[kind];
  if (++tick < kTimeEvery[kind]) return false;
  tick = 0;
  return true;
}

// Runs `call`, timing it when the tick of `kind` says so.
template <typename Call>
auto Timing(WorkloadRecorder* recorder, Timed kind, Call call) {
  if (!TimeThis(kind)) return call();
  const uint64_t t0 = Now();
  auto result = call();
  recorder->AddTimeAt(kind, t0, Now());
  return result;
}

std::atomic<uint64_t> next_rep_id{1};

// A sampled point read: the caller's callback, and whether the first entry
// handed over has the lookup's user key.
struct GetProbe {
  std::string_view user_key;
  void* arg;
  RowCallback row_callback;
  EntryCallback entry_callback;
  bool seen = false;
  bool hit = false;

  void See(std::string_view key) {
    if (!seen) hit = key == user_key;
    seen = true;
  }
  static bool OnRow(void* p, const char* row) {
    auto* probe = static_cast<GetProbe*>(p);
    probe->See(DecodeRow(row).user_key);
    return probe->row_callback(probe->arg, row);
  }
  static bool OnEntry(void* p, const EntryView& entry) {
    auto* probe = static_cast<GetProbe*>(p);
    probe->See(entry.user_key);
    return probe->entry_callback(probe->arg, entry);
  }
};

// Counts seeks and steps in its own fields; hands them to the recorder at
// each positioning call and when it is destroyed.
class CountingIterator final : public RepIterator {
 public:
  CountingIterator(std::unique_ptr<RepIterator> inner, WorkloadRecorder* recorder)
      : inner_(std::move(inner)), recorder_(recorder) {}
  ~CountingIterator() override { Flush(); }

  bool Valid() const override { return inner_->Valid(); }
  EntryView entry() const override { return inner_->entry(); }
  const char* row() const override { return inner_->row(); }
  const char* DisorderNearSeek(const char** before) const override {
    return inner_->DisorderNearSeek(before);
  }
  Status status() const override { return inner_->status(); }
  void SeekToFirst() override {
    Positioned();
    Time(WorkloadRecorder::kTimeSeek, [&] { inner_->SeekToFirst(); });
  }
  void SeekToLast() override {
    Positioned();
    Time(WorkloadRecorder::kTimeSeek, [&] { inner_->SeekToLast(); });
  }
  void Seek(std::string_view internal_key) override {
    Positioned();
    Time(WorkloadRecorder::kTimeSeek, [&] { inner_->Seek(internal_key); });
  }
  void SeekForPrev(std::string_view internal_key) override {
    Positioned();
    Time(WorkloadRecorder::kTimeSeek, [&] { inner_->SeekForPrev(internal_key); });
  }
  void Next() override {
    ++steps_;
    Time(WorkloadRecorder::kTimeStep, [&] { inner_->Next(); });
  }
  void Prev() override {
    ++steps_;
    Time(WorkloadRecorder::kTimeStep, [&] { inner_->Prev(); });
  }

 private:
  template <typename Call>
  void Time(Timed kind, Call call) {
    Timing(recorder_, kind, [&] {
      call();
      return 0;
    });
  }

  void Positioned() {
    ++seeks_;
    Flush();
  }
  void Flush() {
    if (seeks_ != 0) recorder_->Add(Counter::kSeeks, seeks_);
    if (steps_ != 0) recorder_->Add(Counter::kSteps, steps_);
    seeks_ = steps_ = 0;
  }

  const std::unique_ptr<RepIterator> inner_;
  WorkloadRecorder* const recorder_;
  uint64_t seeks_ = 0;
  uint64_t steps_ = 0;
};

}  // namespace

AutoRep::AutoRep(std::unique_ptr<Rep> inner, std::shared_ptr<WorkloadRecorder> recorder)
    : inner_(std::move(inner)),
      recorder_(std::move(recorder)),
      // relaxed: only uniqueness matters.
      id_(next_rep_id.fetch_add(1, std::memory_order_relaxed)) {}

AutoRep::~AutoRep() {
  if (mine.pending_row.rep == id_) mine.pending_row = PendingRow{};
  // What the rep's background work cost, now that it is over (its last
  // task, if one still runs, ends in the rep's destructor, uncounted).
  recorder_->SetBackground(inner_->BackgroundCpuNanos());
}

void AutoRep::SamplePendingRow() {
  if (mine.pending_row.rep != id_) return;
  recorder_->SampleKey(DecodeRow(mine.pending_row.row).user_key);
  mine.pending_row = PendingRow{};
}

Status AutoRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  Status s = Timing(recorder_.get(), WorkloadRecorder::kTimeAllocate,
                    [&] { return inner_->Allocate(len, handle, row); });
  if (s.ok() && recorder_->CountAllocation(len)) mine.pending_row = PendingRow{id_, *row};
  return s;
}

bool AutoRep::Insert(KeyHandle handle) {
  recorder_->Add(Counter::kInserts);
  SamplePendingRow();
  return Timing(recorder_.get(), WorkloadRecorder::kTimeInsert,
                [&] { return inner_->Insert(handle); });
}

bool AutoRep::InsertConcurrently(KeyHandle handle) {
  recorder_->Add(Counter::kConcurrentInserts);
  SamplePendingRow();
  return Timing(recorder_.get(), WorkloadRecorder::kTimeConcurrentInsert,
                [&] { return inner_->InsertConcurrently(handle); });
}

void AutoRep::GetRows(std::string_view internal_key, void* arg, RowCallback callback) const {
  if (!recorder_->CountGet()) return inner_->GetRows(internal_key, arg, callback);
  // A sampled get: its outcome is looked at, and it is timed.
  GetProbe probe{format::UserKey(internal_key), arg, callback, nullptr};
  const uint64_t t0 = Now();
  inner_->GetRows(internal_key, &probe, &GetProbe::OnRow);
  recorder_->AddTimeAt(WorkloadRecorder::kTimeGet, t0, Now());
  recorder_->CountGetOutcome(probe.hit);
}

bool AutoRep::Contains(std::string_view internal_key) const {
  recorder_->Add(Counter::kGets);
  return inner_->Contains(internal_key);
}

Status AutoRep::Add(const EntryView& entry, bool concurrent) {
  if (recorder_->CountAllocation(entry.user_key.size() + entry.value.size() + 8)) {
    recorder_->SampleKey(entry.user_key);
  }
  recorder_->Add(concurrent ? Counter::kConcurrentInserts : Counter::kInserts);
  return Timing(
      recorder_.get(),
      concurrent ? WorkloadRecorder::kTimeConcurrentInsert : WorkloadRecorder::kTimeInsert,
      [&] { return inner_->Add(entry, concurrent); });
}

Status AutoRep::AddBatch(std::span<const EntryView> entries, bool concurrent) {
  uint64_t bytes = 0;
  for (const EntryView& e : entries) bytes += e.user_key.size() + e.value.size() + 8;
  recorder_->Add(Counter::kBatches);
  recorder_->Add(Counter::kBatchEntries, entries.size());
  if (!entries.empty() && recorder_->CountAllocation(bytes)) {
    recorder_->SampleKey(entries.front().user_key);
  }
  // Every batch is timed: batches are few, and long.
  const uint64_t t0 = Now();
  Status s = inner_->AddBatch(entries, concurrent);
  if (!entries.empty()) {
    recorder_->AddTimeAt(WorkloadRecorder::kTimeBatchEntry, t0, Now(), entries.size());
  }
  return s;
}

void AutoRep::Get(std::string_view internal_key, void* arg, EntryCallback callback) const {
  if (!recorder_->CountGet()) return inner_->Get(internal_key, arg, callback);
  GetProbe probe{format::UserKey(internal_key), arg, nullptr, callback};
  const uint64_t t0 = Now();
  inner_->Get(internal_key, &probe, &GetProbe::OnEntry);
  recorder_->AddTimeAt(WorkloadRecorder::kTimeGet, t0, Now());
  recorder_->CountGetOutcome(probe.hit);
}

void AutoRep::MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                       MultiEntryCallback callback) const {
  recorder_->Add(Counter::kGets, internal_keys.size());
  if (internal_keys.empty() || ++mine.multiget_tick % kTimeMultiGetEvery != 0) {
    return inner_->MultiGet(internal_keys, arg, callback);
  }
  const uint64_t t0 = Now();
  inner_->MultiGet(internal_keys, arg, callback);
  recorder_->AddTimeAt(WorkloadRecorder::kTimeGet, t0, Now(), internal_keys.size());
}

void AutoRep::MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                           MultiRowCallback callback) const {
  recorder_->Add(Counter::kGets, internal_keys.size());
  inner_->MultiGetRows(internal_keys, arg, callback);
}

std::unique_ptr<RepIterator> AutoRep::NewIterator() const {
  recorder_->Add(Counter::kIterators);
  std::unique_ptr<RepIterator> inner = Timing(recorder_.get(), WorkloadRecorder::kTimeIterator,
                                              [&] { return inner_->NewIterator(); });
  if (inner == nullptr) return nullptr;
  return std::make_unique<CountingIterator>(std::move(inner), recorder_.get());
}

}  // namespace memrep::auto_rep
