#include "auto/policy.h"

#include <algorithm>
#include <cstdio>

namespace memrep::auto_rep {
namespace {

// 1 / writes: turns a memtable's counts into counts per write.
double PerWrite(const WorkloadStats& s) {
  return s.writes() == 0 ? 1.0 : 1.0 / static_cast<double>(s.writes());
}

size_t IndexOf(const std::vector<std::string>& names, const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  return names.size();
}

std::string Format(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

bool IsReaderOp(size_t op) { return op >= kReaderGet && op <= kReaderStep; }

// Where a candidate's figure for an operation came from.
enum class Source { kMeasured, kProxy, kPrior };

// Each candidate's cost of each operation, and where it came from.
struct Pricing {
  std::vector<std::array<double, kOps>> ns;
  std::vector<std::array<Source, kOps>> source;
  double scale = 1;  // the prior's, to this machine
  // The frozen figure's prior is one step per write, where what is measured
  // also holds the immutable memtable's reads: a candidate not measured
  // there is priced at the ratio the measured candidates show (0 while none
  // is measured).
  double frozen_scale = 1;
};

Pricing Price(const PolicyInput& in, const std::array<double, kOps>& rates) {
  static const Prior kBuiltIn;
  const Prior& prior = in.prior != nullptr ? *in.prior : kBuiltIn;
  const CostBook* book = in.learn ? in.book : nullptr;
  const size_t n = in.candidates.size();
  Pricing p;
  p.ns.assign(n, {});
  p.source.assign(n, {});
  // The prior's scale: what was measured over what the prior says of the
  // same figures, weighed by how much each matters to this workload.
  double measured = 0, priced = 0, frozen_measured = 0, frozen_priced = 0;
  for (size_t i = 0; book != nullptr && i < n; ++i) {
    for (size_t op = 0; op < kOps; ++op) {
      const Measured m = book->Get(in.candidates[i], static_cast<Op>(op));
      if (m.samples == 0 || rates[op] <= 0) continue;
      const double prior_ns = prior.Of(in.candidates[i], static_cast<Op>(op));
      (op == kFrozen ? frozen_measured : measured) += rates[op] * m.ns;
      (op == kFrozen ? frozen_priced : priced) += rates[op] * prior_ns;
    }
  }
  if (priced > 0 && measured > 0) {
    p.scale = std::clamp(measured / priced, 1 / kMaxScale, kMaxScale);
  }
  // Until some candidate measured its frozen reads, none is priced for them:
  // the prior (a step a write) is about the same for every rep.
  p.frozen_scale = frozen_priced > 0 ? frozen_measured / frozen_priced : 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string& rep = in.candidates[i];
    for (size_t o = 0; o < kOps; ++o) {
      const Op op = static_cast<Op>(o);
      const double prior_ns = prior.Of(rep, op);
      if (book != nullptr && book->Has(rep, op)) {
        p.ns[i][o] = book->Get(rep, op).ns;
        p.source[i][o] = Source::kMeasured;
        continue;
      }
      const Op sibling = Sibling(op);
      if (book != nullptr && sibling != kOps && book->Has(rep, sibling)) {
        // The same kind of call measured in another setting, scaled by the
        // prior's ratio of the two.
        const double sibling_prior = prior.Of(rep, sibling);
        const double ratio = sibling_prior > 0 ? prior_ns / sibling_prior : 1.0;
        p.ns[i][o] = book->Get(rep, sibling).ns * ratio;
        p.source[i][o] = Source::kProxy;
        continue;
      }
      p.ns[i][o] = prior_ns * (op == kFrozen ? p.frozen_scale : p.scale);
      p.source[i][o] = Source::kPrior;
    }
  }
  return p;
}

}  // namespace

double OutsidePerWrite(const WorkloadStats& s, bool readers) {
  const uint64_t span = readers ? s.reader_span_nanos : s.writer_span_nanos;
  if (span == 0 || s.writes() == 0) return 0;
  auto of = [](uint64_t calls, const OpTimes& t) { return static_cast<double>(calls) * t.mean(); };
  double in_rep = 0;
  if (readers) {
    in_rep = of(s.reader_gets, s.reader_get_times) + of(s.reader_seeks, s.reader_seek_times) +
             of(s.reader_steps, s.reader_step_times) +
             of(s.reader_iterators, s.reader_iterator_times);
  } else {
    // A row's Allocate comes with each single insert of the RocksDB face
    // (none is timed on the standalone face's).
    in_rep = of(s.inserts, s.insert_times) + of(s.concurrent_inserts, s.concurrent_insert_times) +
             of(s.batch_entries, s.batch_entry_times) +
             of(s.inserts + s.concurrent_inserts, s.allocate_times) +
             of(s.gets - std::min(s.gets, s.reader_gets), s.get_times) +
             of(s.seeks - std::min(s.seeks, s.reader_seeks), s.seek_times) +
             of(s.steps - std::min(s.steps, s.reader_steps), s.step_times) +
             of(s.iterators - std::min(s.iterators, s.reader_iterators), s.iterator_times);
  }
  return std::max(0.0, static_cast<double>(span) - in_rep) / static_cast<double>(s.writes());
}

std::array<double, kOps> RatesOf(const WorkloadStats& s) {
  std::array<double, kOps> r{};
  const double per = PerWrite(s);
  r[kInsert] = s.inserts * per;
  r[kConcurrentInsert] = s.concurrent_inserts * per;
  r[kBatchEntry] = s.batch_entries * per;
  r[kGet] = (s.gets - std::min(s.gets, s.reader_gets)) * per;
  r[kSeek] = (s.seeks - std::min(s.seeks, s.reader_seeks)) * per;
  r[kStep] = (s.steps - std::min(s.steps, s.reader_steps)) * per;
  r[kBackground] = s.writes() == 0 ? 0.0 : 1.0;
  r[kFrozen] = r[kBackground];
  r[kReaderGet] = s.reader_gets * per;
  r[kReaderSeek] = s.reader_seeks * per;
  r[kReaderStep] = s.reader_steps * per;
  return r;
}

PolicyChoice Choose(const PolicyInput& in) {
  const size_t n = in.candidates.size();
  const size_t current = IndexOf(in.candidates, in.current);
  PolicyChoice choice;
  if (size_t pin = IndexOf(in.candidates, in.pin); pin < n) {
    choice.index = pin;
    choice.reason = "pinned";
    return choice;
  }
  if (in.rotate) {
    choice.index = current < n ? (current + 1) % n : 0;
    choice.reason = "rotate: the next candidate in turn";
    return choice;
  }
  if (in.history.empty() || current == n) {
    const size_t start = IndexOf(in.candidates, in.start);
    choice.index = start < n ? start : 0;
    choice.reason = "no history yet: the start rep";
    return choice;
  }
  // Operations per write, the newest memtable weighing most.
  std::array<double, kOps> rates{};
  double writer_threads = 0, reader_threads = 0, writer_outside = 0, reader_outside = 0;
  double total_weight = 0, weight = 1;
  for (const WorkloadStats& s : in.history) {
    const std::array<double, kOps> r = RatesOf(s);
    for (size_t op = 0; op < kOps; ++op) rates[op] += weight * r[op];
    writer_threads += weight * s.writer_threads;
    reader_threads += weight * s.reader_threads;
    writer_outside += weight * OutsidePerWrite(s, /*readers=*/false);
    reader_outside += weight * OutsidePerWrite(s, /*readers=*/true);
    total_weight += weight;
    weight /= 2;
  }
  for (double& r : rates) r /= total_weight;
  writer_threads = std::max(1.0, writer_threads / total_weight);
  reader_threads /= total_weight;
  writer_outside /= total_weight;
  reader_outside /= total_weight;
  rates[kBackground] *= in.background_weight_percent / 100.0;
  rates[kFrozen] *= in.background_weight_percent / 100.0;

  const Pricing price = Price(in, rates);
  // The writers' cost per write, and the readers' per write.
  std::vector<double> writer_cost(n, 0), reader_cost(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t op = 0; op < kOps; ++op) {
      (IsReaderOp(op) ? reader_cost : writer_cost)[i] += rates[op] * price.ns[i][op];
    }
  }
  // Threads that only read run beside the writers, on cores of their own:
  // their time does not add to the writers'. Each busy thread then counts
  // as one, by the share of its time the rep would take. A thread also
  // spends time outside this memtable (in the write-ahead log, in other
  // memtables and files, waiting), the same whichever rep this memtable
  // has: per write, the writers spend O_w there, the readers O_r. With the
  // best rep for it, a writer's time per write is O_w + the least writer
  // cost, and the busy threads this memtable takes are
  // cost = writer threads x writer cost / (O_w + least writer cost)
  //      + reader threads x reader cost / (O_r + least reader cost).
  // The rest of the threads' time is the same for every candidate, so the
  // margin and the trials' range compare the memtable's part alone, as
  // they compare ns a write without readers. Without such readers, the
  // cost is the writers' alone.
  const bool readers =
      reader_threads > 0 && rates[kReaderGet] + rates[kReaderSeek] >= kMinReaderReads;
  std::vector<double> cost = writer_cost;
  if (readers) {
    const double least_w =
        std::max(*std::min_element(writer_cost.begin(), writer_cost.end()), 1e-9);
    const double least_r =
        std::max(*std::min_element(reader_cost.begin(), reader_cost.end()), 1e-9);
    for (size_t i = 0; i < n; ++i) {
      cost[i] = writer_threads * writer_cost[i] / (writer_outside + least_w) +
                reader_threads * reader_cost[i] / (reader_outside + least_r);
    }
  }
  // Which of each candidate's significant operations no measurement covers.
  std::vector<std::string> unmeasured(n);
  std::vector<bool> any_measured(n, false);
  for (size_t i = 0; i < n; ++i) {
    for (size_t op = 0; op < kOps; ++op) {
      // The background and frozen figures come only when a memtable is
      // destroyed, long after its trial: they never call for one.
      if (op == kBackground || op == kFrozen || (IsReaderOp(op) && !readers)) continue;
      const double side = IsReaderOp(op) ? reader_cost[i] : writer_cost[i];
      if (side <= 0 || rates[op] * price.ns[i][op] < kSignificantShare * side) continue;
      if (price.source[i][op] == Source::kPrior) {
        unmeasured[i] += (unmeasured[i].empty() ? "" : ", ") + std::string(OpName(Op(op)));
      } else {
        any_measured[i] = true;
      }
    }
  }

  const size_t settled_at = IndexOf(in.candidates, in.settled);
  const size_t settled = settled_at < n ? settled_at : current;
  size_t best = settled;
  for (size_t i = 0; i < n; ++i) {
    if (cost[i] < cost[best]) best = i;
  }
  const bool switch_rep =
      best != settled && cost[best] <= cost[settled] * (100 - in.margin_percent) / 100.0;
  choice.index = switch_rep ? best : settled;
  // A trial: the cheapest candidate within reach that no measurement
  // covers, while the budget lasts.
  const uint32_t budget = in.explore_percent * kTrialWindow / 100;
  size_t trial = n;
  if (in.learn && !switch_rep && in.recent_trials < budget) {
    for (size_t i = 0; i < n; ++i) {
      if (i == choice.index || unmeasured[i].empty() || cost[i] > cost[best] * kTryRange) continue;
      if (trial == n || cost[i] < cost[trial]) trial = i;
    }
  }
  if (trial < n) {
    choice.index = trial;
    choice.trial = true;
  }

  std::string why = "per write: " + Format("%.2f", rates[kGet]) + " gets, " +
                    Format("%.2f", rates[kSeek]) + " seeks, " + Format("%.1f", rates[kStep]) +
                    " steps, " + Format("%.2f", rates[kConcurrentInsert]) + " concurrent, " +
                    Format("%.2f", rates[kBatchEntry]) + " batched";
  if (readers) {
    why += "; reader threads " + Format("%.1f", reader_threads) + " beside writers " +
           Format("%.1f", writer_threads) + ", their gets " + Format("%.3f", rates[kReaderGet]) +
           ", seeks " + Format("%.3f", rates[kReaderSeek]) +
           " per write; outside the memtable per write: writers " + Format("%.0f", writer_outside) +
           " ns, readers " + Format("%.0f", reader_outside) + " ns; busy threads in the memtable:";
  } else {
    why += "; est. ns/write:";
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string basis = !in.learn || (!any_measured[i] && !unmeasured[i].empty()) ? "prior"
                              : unmeasured[i].empty()                                   ? "measured"
                                                      : "measured; prior: " + unmeasured[i];
    why += " " + in.candidates[i] + "=" + Format(readers ? "%.3f" : "%.0f", cost[i]) +
           (i == best ? "*" : "") + " (" + basis + ")";
  }
  if (in.learn) why += "; prior x" + Format("%.2f", price.scale);
  const std::string margin = std::to_string(in.margin_percent) + "%";
  if (choice.trial) {
    why += "; try " + in.candidates[trial] + " (no measurement covers its " + unmeasured[trial] +
           " for this workload; trials: " + std::to_string(in.recent_trials) + " of the last " +
           std::to_string(kTrialWindow) + " memtables, at most " + std::to_string(budget) + ")";
  } else if (switch_rep) {
    why += "; switch (the best is " + margin + " or more below " + in.candidates[settled] + ")";
  } else if (settled != current) {
    why += "; back to " + in.candidates[settled] + " (" + in.current + ", tried, is not " + margin +
           " below it)";
  } else {
    why += best == current ? "; keep (the current is the best)"
                           : "; keep (the best is within the " + margin + " margin)";
  }
  choice.reason = why;
  return choice;
}

}  // namespace memrep::auto_rep
