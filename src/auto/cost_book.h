// What memrep.Auto knows of each rep's costs: the prior (the cost table, or
// the `prior` option a calibration printed) and the book of what this
// lineage's memtables measured. The policy (auto/policy.h) prices each
// candidate from the book where it has a figure, from the prior elsewhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/auto.h"
#include "memrep/status.h"

namespace memrep::auto_rep {

// The operations the cost model prices, per write. The first kTableOps are
// the cost table's columns; a reader thread's reads (a thread that only
// reads, beside the writers) are measured apart, and priced by the table's
// get, seek and step columns.
enum Op : size_t {
  kInsert,            // a single-writer insert (with its row's Allocate)
  kConcurrentInsert,  // an insert among concurrent writers
  kBatchEntry,        // an entry of a batch (AddBatch)
  kGet,               // a point read
  kSeek,              // an iterator positioning call (with its share of NewIterator)
  kStep,              // Next or Prev
  kBackground,        // background CPU per write (sorting, merging), scaled by
                      // background_weight_percent
  kReaderGet,         // the same three, by a thread that only reads
  kReaderSeek,
  kReaderStep,
  kFrozen,  // reads per write once the memtable was replaced: the flush's
            // scan and reads of the immutable memtable (priced as one step)
  kOps
};
inline constexpr size_t kTableOps = kBackground + 1;

// "insert", "concurrent_insert", "batch_entry", "get", "seek", "step",
// "background", "reader_get", "reader_seek", "reader_step", "frozen".
const char* OpName(Op op);
// The table column that prices `op` when nothing measured it.
Op TableColumn(Op op);
// The op measured in another way that stands in for `op` when `op` itself
// was not measured (an insert for a concurrent insert, a writer's get for a
// reader's), scaled by the prior's ratio of the two; kOps if none.
Op Sibling(Op op);

// One rep's costs, nanoseconds per operation, in the table's columns.
struct RepCosts {
  std::string rep;  // canonical name
  std::array<double, kTableOps> ns{};
};

// The built-in table (docs/auto.md, "The cost table"; the runs it comes from:
// docs/results/2026-11-26-auto.md).
const std::vector<RepCosts>& CostTable();

// The prior for these options: the built-in table, with the reps that
// `prior` lists replaced. A rep in neither (one an application registered)
// is priced as the sorted hash rep.
class Prior {
 public:
  Prior() = default;
  // REQUIRES: `text` passed ParsePrior.
  explicit Prior(std::string_view text);
  const std::array<double, kTableOps>& Of(std::string_view rep) const;
  double Of(std::string_view rep, Op op) const { return Of(rep)[TableColumn(op)]; }

 private:
  std::vector<RepCosts> overrides_;
};

// The `prior` option: "rep:insert/concurrent_insert/batch_entry/get/seek/
// step/background,rep:..." (ns, decimals allowed), as memrep_bench
// --calibrate_auto prints it; "" for none. InvalidArgument saying what is
// wrong.
Status ParsePrior(std::string_view text, std::vector<RepCosts>* out);
std::string FormatPrior(const std::vector<RepCosts>& costs);

// One measured figure: its mean ns, and how many timed calls are behind it.
struct Measured {
  double ns = 0;
  uint64_t samples = 0;  // 0: not measured
};

// A memtable's kind of call counts as measured from this many timed calls.
inline constexpr uint64_t kMinTimed = 8;

// What a lineage's memtables measured, per rep and operation. Each memtable
// that timed at least kMinTimed calls of a kind replaces half of the
// figure (a moving mean that follows the newest memtables). The background
// and frozen figures, one per memtable, first have a new figure clamped to
// within kMaxStep of the old one, so that a memtable whose flush was kept
// off the cores does not swing the choice.
class CostBook {
 public:
  static constexpr double kMaxStep = 2;
  static constexpr double kStepFloorNs = 50;
  bool Has(std::string_view rep, Op op) const { return Get(rep, op).samples != 0; }
  Measured Get(std::string_view rep, Op op) const;
  void Add(const std::string& rep, Op op, double mean_ns, uint64_t samples);
  // Sets a figure as it was (a restored file).
  void Set(const std::string& rep, Op op, Measured m);
  // Figures measured, over every rep and operation.
  size_t Count() const;
  const std::map<std::string, std::array<Measured, kOps>, std::less<>>& reps() const {
    return reps_;
  }
  // Keeps only the reps in `names`.
  void Retain(const std::vector<std::string>& names);

 private:
  std::map<std::string, std::array<Measured, kOps>, std::less<>> reps_;
};

// Adds what one memtable of `rep` measured (its statistics when the next
// memtable was made) to the book. The background and frozen figures wait
// for the memtable's destruction: LearnFinal.
void LearnFrom(const WorkloadStats& stats, const std::string& rep, CostBook* book);
// Adds what a destroyed memtable cost after it was replaced (`final`, whose
// background_final holds, against `replaced`, its statistics when the next
// memtable was made): its background CPU per write, and the time of its
// frozen reads per write (kFrozen: the calls counted since `replaced`, each
// kind at the mean time of its calls sampled since, or of its whole life
// where fewer than kMinTimed were). False if `final` is not final yet.
bool LearnFinal(const WorkloadStats& final, const WorkloadStats& replaced, const std::string& rep,
                CostBook* book);

}  // namespace memrep::auto_rep
