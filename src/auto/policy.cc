#include "auto/policy.h"

#include <algorithm>
#include <cstdio>

namespace memrep::auto_rep {

const std::vector<RepCosts>& CostTable() {
  // ns per operation: insert, concurrent insert, batch entry, get, seek,
  // step, background CPU per write. Measured through RocksDB (db_bench's
  // time per op at 140,000 entries of 16 + 100 bytes, about a 16 MiB
  // memtable, less the time of a rep that stores nothing), gets and seeks
  // while writes go on; batch entries, steps and background work from
  // memrep_bench. docs/auto.md ("The cost table") gives the runs.
  static const std::vector<RepCosts> table = {
      {"memrep.SortedHash", {{230, 230, 110, 290, 580, 30, 140}}},
      {"memrep.Vector", {{50, 60, 70, 830, 900, 30, 110}}},
      {"memrep.Trie", {{190, 270, 160, 240, 330, 25, 0}}},
      {"memrep.Columnar", {{300, 450, 125, 420, 5000, 30, 80}}},
  };
  return table;
}

const RepCosts& CostsOf(std::string_view rep) {
  for (const RepCosts& c : CostTable()) {
    if (c.rep == rep) return c;
  }
  return CostTable().front();
}

namespace {

// 1 / writes: turns a memtable's counts into counts per write.
double PerWrite(const WorkloadStats& s) {
  return s.writes() == 0 ? 1.0 : 1.0 / static_cast<double>(s.writes());
}

}  // namespace

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
  return r;
}

std::array<double, kOps> ReaderRatesOf(const WorkloadStats& s) {
  std::array<double, kOps> r{};
  const double per = PerWrite(s);
  r[kGet] = s.reader_gets * per;
  r[kSeek] = s.reader_seeks * per;
  r[kStep] = s.reader_steps * per;
  return r;
}

namespace {

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

}  // namespace

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
  // Operations per write, the newest memtable weighing most: those of the
  // threads that write (their reads included), and those of the threads
  // that only read.
  std::array<double, kOps> rates{}, reader_rates{};
  double writer_threads = 0, reader_threads = 0;
  double total_weight = 0, weight = 1;
  for (const WorkloadStats& s : in.history) {
    const std::array<double, kOps> r = RatesOf(s), rr = ReaderRatesOf(s);
    for (size_t op = 0; op < kOps; ++op) {
      rates[op] += weight * r[op];
      reader_rates[op] += weight * rr[op];
    }
    writer_threads += weight * s.writer_threads;
    reader_threads += weight * s.reader_threads;
    total_weight += weight;
    weight /= 2;
  }
  for (size_t op = 0; op < kOps; ++op) {
    rates[op] /= total_weight;
    reader_rates[op] /= total_weight;
  }
  writer_threads = std::max(1.0, writer_threads / total_weight);
  reader_threads /= total_weight;
  rates[kBackground] *= in.background_weight_percent / 100.0;

  // The writers' cost per write, and the readers' per write.
  std::vector<double> writer_cost(n, 0), reader_cost(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const RepCosts& c = CostsOf(in.candidates[i]);
    for (size_t op = 0; op < kOps; ++op) {
      writer_cost[i] += rates[op] * c.ns[op];
      reader_cost[i] += reader_rates[op] * c.ns[op];
    }
  }
  // Threads that only read run beside the writers, on cores of their own:
  // their time does not add to the writers'. Each busy thread then counts
  // as one, by how much slower the rep makes it than the best rep would:
  // cost = writer threads x (writer cost / least writer cost) + reader
  // threads x (reader cost / least reader cost). Without such readers, the
  // cost is the writers' alone.
  const bool readers =
      reader_threads > 0 && reader_rates[kGet] + reader_rates[kSeek] >= kMinReaderReads;
  std::vector<double> cost = writer_cost;
  if (readers) {
    const double least_w =
        std::max(*std::min_element(writer_cost.begin(), writer_cost.end()), 1e-9);
    const double least_r =
        std::max(*std::min_element(reader_cost.begin(), reader_cost.end()), 1e-9);
    for (size_t i = 0; i < n; ++i) {
      cost[i] =
          writer_threads * writer_cost[i] / least_w + reader_threads * reader_cost[i] / least_r;
    }
  }
  size_t best = current;
  for (size_t i = 0; i < n; ++i) {
    if (cost[i] < cost[best]) best = i;
  }
  const bool switch_rep =
      best != current && cost[best] <= cost[current] * (100 - in.margin_percent) / 100.0;
  choice.index = switch_rep ? best : current;

  std::string why = "per write: " + Format("%.2f", rates[kGet]) + " gets, " +
                    Format("%.2f", rates[kSeek]) + " seeks, " + Format("%.1f", rates[kStep]) +
                    " steps, " + Format("%.2f", rates[kConcurrentInsert]) + " concurrent, " +
                    Format("%.2f", rates[kBatchEntry]) + " batched";
  if (readers) {
    why += "; reader threads " + Format("%.1f", reader_threads) + " beside writers " +
           Format("%.1f", writer_threads) + ", their gets " + Format("%.3f", reader_rates[kGet]) +
           ", seeks " + Format("%.3f", reader_rates[kSeek]) + " per write; cost in busy threads:";
  } else {
    why += "; est. ns/write:";
  }
  for (size_t i = 0; i < n; ++i) {
    why += " " + in.candidates[i] + "=" + Format(readers ? "%.2f" : "%.0f", cost[i]) +
           (i == best ? "*" : "");
  }
  why += switch_rep ? "; switch (the best is " + std::to_string(in.margin_percent) +
                          "% or more below the current)"
                    : (best == current ? "; keep (the current is the best)"
                                       : "; keep (the best is within the " +
                                             std::to_string(in.margin_percent) + "% margin)");
  choice.reason = why;
  return choice;
}

}  // namespace memrep::auto_rep
