#include "auto/cost_book.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "registry/option_table.h"
#include "registry/registry.h"

namespace memrep::auto_rep {

const char* OpName(Op op) {
  static constexpr const char* kNames[kOps] = {
      "insert",     "concurrent_insert", "batch_entry", "get",         "seek",  "step",
      "background", "reader_get",        "reader_seek", "reader_step", "frozen"};
  return op < kOps ? kNames[op] : "?";
}

Op TableColumn(Op op) {
  switch (op) {
    case kReaderGet:
      return kGet;
    case kReaderSeek:
      return kSeek;
    case kReaderStep:
    case kFrozen:
      return kStep;
    default:
      return op;
  }
}

Op Sibling(Op op) {
  switch (op) {
    case kInsert:
      return kConcurrentInsert;
    case kConcurrentInsert:
    case kBatchEntry:
      return kInsert;
    case kGet:
      return kReaderGet;
    case kSeek:
      return kReaderSeek;
    case kStep:
      return kReaderStep;
    case kReaderGet:
    case kReaderSeek:
    case kReaderStep:
      return TableColumn(op);
    default:
      return kOps;
  }
}

const std::vector<RepCosts>& CostTable() {
  // ns per operation: insert, concurrent insert, batch entry, get, seek,
  // step, background CPU per write. Measured through RocksDB (db_bench's
  // time per op at 140,000 entries of 16 + 100 bytes, about a 16 MiB
  // memtable, less the time of a rep that stores nothing), gets and seeks
  // while writes go on; batch entries, steps and background work from
  // memrep_bench. docs/results/2026-11-26-auto.md gives the runs.
  static const std::vector<RepCosts> table = {
      {"memrep.SortedHash", {{230, 230, 110, 290, 580, 30, 140}}},
      {"memrep.Vector", {{50, 60, 70, 830, 900, 30, 110}}},
      {"memrep.Trie", {{190, 270, 160, 240, 330, 25, 0}}},
      {"memrep.Columnar", {{300, 450, 125, 420, 5000, 30, 80}}},
  };
  return table;
}

Prior::Prior(std::string_view text) { (void)ParsePrior(text, &overrides_); }

const std::array<double, kTableOps>& Prior::Of(std::string_view rep) const {
  for (const RepCosts& c : overrides_) {
    if (c.rep == rep) return c.ns;
  }
  for (const RepCosts& c : CostTable()) {
    if (c.rep == rep) return c.ns;
  }
  return CostTable().front().ns;
}

Status ParsePrior(std::string_view text, std::vector<RepCosts>* out) {
  out->clear();
  text = registry::Trim(text);
  if (text.empty()) return Status::OK();
  auto bad = [&](std::string_view item, const std::string& why) {
    return Status::InvalidArgument("memrep.Auto option prior: '" + std::string(item) + "' " + why +
                                   "; give rep:insert/concurrent_insert/batch_entry/get/seek/"
                                   "step/background (ns) for each rep, comma-separated, as "
                                   "memrep_bench --calibrate_auto prints it");
  };
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = registry::Trim(text.substr(0, comma));
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) return bad(item, "has no ':'");
    const registry::Registration* r = registry::Find(registry::Trim(item.substr(0, colon)));
    if (r == nullptr) return bad(item, "does not name a registered rep");
    RepCosts costs;
    costs.rep = r->name;
    std::string_view numbers = item.substr(colon + 1);
    for (size_t i = 0; i < kTableOps; ++i) {
      const size_t slash = numbers.find('/');
      if ((slash == std::string_view::npos) != (i + 1 == kTableOps)) {
        return bad(item, "does not have " + std::to_string(kTableOps) + " figures");
      }
      const std::string figure(registry::Trim(numbers.substr(0, slash)));
      char* end = nullptr;
      const double v = figure.empty() ? -1 : std::strtod(figure.c_str(), &end);
      if (figure.empty() || end != figure.c_str() + figure.size() || !std::isfinite(v) || v < 0 ||
          v > 1e9) {
        return bad(item, "has a figure that is not a number of ns from 0 to 1e9: '" + figure + "'");
      }
      costs.ns[i] = v;
      if (slash != std::string_view::npos) numbers.remove_prefix(slash + 1);
    }
    for (const RepCosts& c : *out) {
      if (c.rep == costs.rep) return bad(item, "names a rep listed before");
    }
    out->push_back(costs);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return Status::OK();
}

std::string FormatPrior(const std::vector<RepCosts>& costs) {
  std::string out;
  for (const RepCosts& c : costs) {
    out += (out.empty() ? "" : ",") + c.rep + ":";
    for (size_t i = 0; i < kTableOps; ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s%.0f", i == 0 ? "" : "/", c.ns[i]);
      out += buf;
    }
  }
  return out;
}

Measured CostBook::Get(std::string_view rep, Op op) const {
  const auto it = reps_.find(rep);
  return it == reps_.end() ? Measured{} : it->second[op];
}

void CostBook::Add(const std::string& rep, Op op, double mean_ns, uint64_t samples) {
  if (samples < kMinTimed) return;
  Measured& m = reps_[rep][op];
  if (m.samples != 0 && (op == kBackground || op == kFrozen)) {
    // One memtable's figure, timed on one thread that others may have kept
    // off the cores for a while: it moves the figure by at most 1.5x (and
    // kStepFloorNs, so that a figure of 0 can still grow).
    mean_ns = std::clamp(mean_ns, m.ns / kMaxStep, m.ns * kMaxStep + kStepFloorNs);
  }
  m.ns = m.samples == 0 ? mean_ns : (m.ns + mean_ns) / 2;
  m.samples += samples;
}

void CostBook::Set(const std::string& rep, Op op, Measured m) { reps_[rep][op] = m; }

size_t CostBook::Count() const {
  size_t n = 0;
  for (const auto& [rep, ops] : reps_) {
    for (const Measured& m : ops) n += m.samples != 0;
  }
  return n;
}

void CostBook::Retain(const std::vector<std::string>& names) {
  for (auto it = reps_.begin(); it != reps_.end();) {
    it = std::find(names.begin(), names.end(), it->first) == names.end() ? reps_.erase(it)
                                                                         : std::next(it);
  }
}

namespace {

// A seek's cost: the positioning call, and its share of the iterators made
// (RocksDB makes one per scan).
void LearnSeeks(const OpTimes& seeks, const OpTimes& iterators, uint64_t seek_count,
                uint64_t iterator_count, const std::string& rep, Op op, CostBook* book) {
  if (seeks.timed < kMinTimed || seek_count == 0) return;
  double ns = seeks.mean();
  if (iterators.timed >= kMinTimed) {
    ns += iterators.mean() * static_cast<double>(iterator_count) / static_cast<double>(seek_count);
  }
  book->Add(rep, op, ns, seeks.timed);
}

}  // namespace

void LearnFrom(const WorkloadStats& s, const std::string& rep, CostBook* book) {
  // Every row insert of the RocksDB face has its Allocate first.
  const double allocate = s.allocate_times.timed >= kMinTimed ? s.allocate_times.mean() : 0.0;
  if (s.insert_times.timed >= kMinTimed) {
    book->Add(rep, kInsert, s.insert_times.mean() + allocate, s.insert_times.timed);
  }
  if (s.concurrent_insert_times.timed >= kMinTimed) {
    book->Add(rep, kConcurrentInsert, s.concurrent_insert_times.mean() + allocate,
              s.concurrent_insert_times.timed);
  }
  book->Add(rep, kBatchEntry, s.batch_entry_times.mean(), s.batch_entry_times.timed);
  book->Add(rep, kGet, s.get_times.mean(), s.get_times.timed);
  book->Add(rep, kReaderGet, s.reader_get_times.mean(), s.reader_get_times.timed);
  const uint64_t writer_seeks = s.seeks - std::min(s.seeks, s.reader_seeks);
  const uint64_t writer_iterators = s.iterators - std::min(s.iterators, s.reader_iterators);
  LearnSeeks(s.seek_times, s.iterator_times, writer_seeks, writer_iterators, rep, kSeek, book);
  LearnSeeks(s.reader_seek_times, s.reader_iterator_times, s.reader_seeks, s.reader_iterators, rep,
             kReaderSeek, book);
  book->Add(rep, kStep, s.step_times.mean(), s.step_times.timed);
  book->Add(rep, kReaderStep, s.reader_step_times.mean(), s.reader_step_times.timed);
}

bool LearnFinal(const WorkloadStats& s, const WorkloadStats& replaced, const std::string& rep,
                CostBook* book) {
  if (!s.background_final) return false;
  // A memtable of fewer writes says little of the cost per write.
  if (s.writes() < 64 * kMinTimed) return true;
  const double writes = static_cast<double>(s.writes());
  book->Add(rep, kBackground, static_cast<double>(s.background_nanos) / writes, s.writes());
  // Each kind's calls since replacement, at the mean time of those sampled
  // since (the whole life's where fewer than kMinTimed were), every thread's
  // alike: after replacement nobody writes, and the flush reads from a
  // thread of its own.
  using W = WorkloadStats;
  auto frozen = [&](uint64_t W::*count, OpTimes W::*writer, OpTimes W::*reader) {
    const uint64_t calls = s.*count - std::min(s.*count, replaced.*count);
    if (calls == 0) return 0.0;
    const OpTimes life{(s.*writer).timed + (s.*reader).timed,
                       (s.*writer).nanos + (s.*reader).nanos};
    const OpTimes then{(replaced.*writer).timed + (replaced.*reader).timed,
                       (replaced.*writer).nanos + (replaced.*reader).nanos};
    const OpTimes after{life.timed - std::min(life.timed, then.timed),
                        life.nanos - std::min(life.nanos, then.nanos)};
    return static_cast<double>(calls) * (after.timed >= kMinTimed ? after : life).mean();
  };
  const double ns = frozen(&W::gets, &W::get_times, &W::reader_get_times) +
                    frozen(&W::seeks, &W::seek_times, &W::reader_seek_times) +
                    frozen(&W::steps, &W::step_times, &W::reader_step_times) +
                    frozen(&W::iterators, &W::iterator_times, &W::reader_iterator_times);
  book->Add(rep, kFrozen, ns / writes, s.writes());
  return true;
}

}  // namespace memrep::auto_rep
