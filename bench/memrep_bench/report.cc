#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "memrep/registry.h"

namespace memrep::bench {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

// A JSON or CSV number: integers without a fraction, others with 6 significant digits.
std::string Number(double value) {
  if (!std::isfinite(value)) return "0";
  char buf[64];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
  } else {
    std::snprintf(buf, sizeof(buf), "%.6g", value);
  }
  return buf;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// {"key": "value", ...}
std::string JsonObject(const std::map<std::string, std::string>& items) {
  std::string out = "{";
  for (const auto& [key, value] : items) {
    out += (out.size() > 1 ? ", " : "") + JsonString(key) + ": " + JsonString(value);
  }
  return out + "}";
}

const char* Bool(bool b) { return b ? "true" : "false"; }

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Pad(std::string s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string DistributionName(const Flags& f) {
  return f.key_distribution == KeyDistribution::kUniform
             ? "uniform"
             : "zipfian(theta=" + Fixed(f.zipf_theta, 2) + ")";
}

Status Written(const std::ofstream& out, const std::string& path) {
  if (!out) return Status::InvalidArgument("could not write " + path);
  return Status::OK();
}

}  // namespace

const std::vector<Metric>& Metrics() {
  static const std::vector<Metric> metrics = {
      {"threads", [](const Measurement& m) { return double(m.threads); }},
      {"ops", [](const Measurement& m) { return double(m.ops); }},
      {"seconds", [](const Measurement& m) { return m.seconds; }},
      {"ops_per_sec", [](const Measurement& m) { return m.ops_per_second(); }},
      {"micros_per_op", [](const Measurement& m) { return m.micros_per_op; }},
      {"p50_ns", [](const Measurement& m) { return m.latency.p50_ns; }},
      {"p99_ns", [](const Measurement& m) { return m.latency.p99_ns; }},
      {"p999_ns", [](const Measurement& m) { return m.latency.p999_ns; }},
      {"latency_samples", [](const Measurement& m) { return double(m.latency.samples); }},
      {"write_ops", [](const Measurement& m) { return double(m.write_ops); }},
      {"write_ops_per_sec", [](const Measurement& m) { return m.write_ops_per_second(); }},
      {"hits", [](const Measurement& m) { return double(m.hits); }},
      {"misses", [](const Measurement& m) { return double(m.misses); }},
      {"entries", [](const Measurement& m) { return double(m.entries); }},
      {"bytes_per_entry", [](const Measurement& m) { return m.bytes_per_entry(); }},
      {"memory_bytes", [](const Measurement& m) { return double(m.memory_bytes); }},
      {"arena_reserved_bytes", [](const Measurement& m) { return double(m.arena_reserved_bytes); }},
      {"create_us", [](const Measurement& m) { return m.create_micros; }},
      {"destroy_us", [](const Measurement& m) { return m.destroy_micros; }},
      {"bg_cpu_s_per_m", [](const Measurement& m) { return m.background_cpu_per_million(); }},
  };
  return metrics;
}

double Summary::Get(const char* metric) const {
  const std::vector<Metric>& metrics = Metrics();
  for (size_t i = 0; i < metrics.size() && i < medians.size(); ++i) {
    if (std::strcmp(metrics[i].name, metric) == 0) return medians[i];
  }
  return 0;
}

std::string FormatCount(double value) {
  const double a = std::fabs(value);
  if (a >= 1e9) return Fixed(value / 1e9, 2) + "G";
  if (a >= 1e6) return Fixed(value / 1e6, 2) + "M";
  if (a >= 1e3) return Fixed(value / 1e3, 2) + "K";
  return Fixed(value, a >= 100 || a == std::floor(a) ? 0 : 1);
}

std::string RepListJson(const std::vector<KnownRep>& reps) {
  std::string out = "{\"reps\": [";
  for (size_t i = 0; i < reps.size(); ++i) {
    const KnownRep& rep = reps[i];
    const RepTraits& t = rep.traits;
    std::string aliases;
    for (const std::string& alias : rep.aliases) {
      aliases += (aliases.empty() ? "" : ", ") + JsonString(alias);
    }
    out += std::string(i == 0 ? "\n" : ",\n") + "  {\"name\": " + JsonString(rep.name) +
           ", \"canonical_name\": " + JsonString(rep.canonical_name) + ", \"aliases\": [" +
           aliases + "], \"memrep\": " + Bool(rep.memrep) +
           ", \"description\": " + JsonString(rep.description) +
           ", \"traits\": {\"concurrent_insert\": " + Bool(t.concurrent_insert) +
           ", \"detects_duplicates\": " + Bool(t.detects_duplicates()) + ", \"duplicates\": \"" +
           DuplicatesName(t.duplicates) + "\", \"comparators\": \"" +
           ComparatorsName(t.comparators) + "\", \"point_read_while_mutable\": \"" +
           CostName(t.point_read_while_mutable) + "\", \"new_iterator_while_mutable\": \"" +
           CostName(t.new_iterator_while_mutable) + "\", \"file_backed\": " + Bool(t.file_backed) +
           ", \"max_memtable_bytes\": " + std::to_string(t.max_memtable_bytes) + "}}";
  }
  return out + "\n]}\n";
}

std::string BaselineRep(const std::vector<std::string>& reps) {
  // RocksDB's default rep (skip_list), the table's first.
  const std::string rocksdb_default = DefaultReps().front();
  if (std::find(reps.begin(), reps.end(), rocksdb_default) != reps.end()) return rocksdb_default;
  return reps.empty() ? "" : reps.front();
}

std::vector<Summary> Summarize(const std::vector<RunRecord>& runs, const Flags& flags) {
  const std::vector<Metric>& metrics = Metrics();
  const std::string baseline = BaselineRep(flags.reps);
  std::vector<Summary> out;
  for (const std::string& workload : flags.benchmarks) {
    const size_t first = out.size();
    for (const std::string& rep : flags.reps) {
      Summary s;
      s.workload = workload;
      s.rep = rep;
      std::vector<std::vector<double>> values(metrics.size());
      for (const RunRecord& r : runs) {
        if (r.workload != workload || r.rep != rep) continue;
        if (s.note.empty()) s.note = r.m.note;
        if (s.runs == 0) s.face = r.m.face;
        if (r.m.skipped) continue;
        ++s.runs;
        for (size_t i = 0; i < metrics.size(); ++i) values[i].push_back(metrics[i].get(r.m));
      }
      for (const std::vector<double>& v : values) s.medians.push_back(Median(v));
      out.push_back(std::move(s));
    }
    double base = 0;
    for (size_t i = first; i < out.size(); ++i) {
      if (out[i].rep == baseline && out[i].runs > 0) base = out[i].Get("ops_per_sec");
    }
    for (size_t i = first; i < out.size(); ++i) {
      if (base > 0 && out[i].runs > 0) out[i].ratio = out[i].Get("ops_per_sec") / base;
    }
  }
  return out;
}

std::string FormatTable(const Flags& flags, const std::vector<Summary>& summaries) {
  const std::string baseline = BaselineRep(flags.reps);
  std::string out =
      "memrep_bench: num_operations=" + std::to_string(flags.num_operations) +
      " key_size=" + std::to_string(flags.key_size) +
      (flags.shared_prefix > 0 ? " shared_prefix=" + std::to_string(flags.shared_prefix)
                               : std::string()) +
      " item_size=" + std::to_string(flags.item_size) +
      " num_threads=" + std::to_string(flags.num_threads) +
      " num_scans=" + std::to_string(flags.num_scans) + " distribution=" + DistributionName(flags) +
      " read_miss_ratio=" + Fixed(flags.read_miss_ratio, 2) +
      " seed=" + std::to_string(flags.seed) + " repeats=" + std::to_string(flags.repeats) +
      " face=" + FaceName(flags.face) +
      (std::find_if(flags.benchmarks.begin(), flags.benchmarks.end(),
                    [](const std::string& b) { return b == "fillbatch" || b == "multiget"; }) !=
               flags.benchmarks.end()
           ? " batch_size=" + std::to_string(flags.batch_size)
           : std::string()) +
      " (medians)\n";
  struct Column {
    std::string title;
    size_t width;
    bool right;
  };
  size_t rep_width = 15;  // the longest rep name, so that the columns line up
  for (const Summary& s : summaries) rep_width = std::max(rep_width, s.rep.size());
  const std::vector<Column> columns = {
      {"workload", 16, false}, {"rep", rep_width, false},    {"thr", 3, true},
      {"ops/s", 8, true},      {"us/op", 8, true},           {"p50 ns", 7, true},
      {"p99 ns", 7, true},     {"p99.9 ns", 8, true},        {"writes/s", 8, true},
      {"B/entry", 7, true},    {"create us", 9, true},       {"destroy us", 10, true},
      {"bg s/M", 6, true},     {"vs " + baseline, 12, true}, {"notes", 0, false},
  };
  auto row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      line += Pad(cells[i], columns[i].width, columns[i].right);
      if (i + 1 < cells.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::vector<std::string> titles;
  for (const Column& c : columns) titles.push_back(c.title);
  out += row(titles);
  for (const Summary& s : summaries) {
    if (s.runs == 0) {
      out += row({s.workload, s.rep, "", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-",
                  s.note.empty() ? "no runs" : s.note});
      continue;
    }
    std::string notes = s.note;
    if (s.workload == "readrandom" || s.workload == "multiget" || s.workload == "readwrite" ||
        s.workload == "mix8020") {
      const double total = s.Get("hits") + s.Get("misses");
      notes += std::string(notes.empty() ? "" : "; ") + "hits " + FormatCount(s.Get("hits")) +
               ", misses " + FormatCount(s.Get("misses")) +
               (total > 0 ? " (" + Fixed(100 * s.Get("hits") / total, 1) + "% hits)" : "");
    }
    const double writes = s.Get("write_ops_per_sec");
    const bool sampled = s.Get("latency_samples") > 0;
    auto nanos = [&](const char* metric) {
      return sampled ? Number(std::round(s.Get(metric))) : std::string("-");
    };
    out +=
        row({s.workload, s.rep, Number(s.Get("threads")), FormatCount(s.Get("ops_per_sec")),
             Fixed(s.Get("micros_per_op"), 3), nanos("p50_ns"), nanos("p99_ns"), nanos("p999_ns"),
             writes > 0 ? FormatCount(writes) : "-", Fixed(s.Get("bytes_per_entry"), 1),
             Fixed(s.Get("create_us"), 1), Fixed(s.Get("destroy_us"), 1),
             s.Get("bg_cpu_s_per_m") >= 0 ? Fixed(s.Get("bg_cpu_s_per_m"), 2) : "-",
             s.ratio > 0 ? Fixed(s.ratio, 2) + "x" : "-", notes});
  }
  out += "ratio: median ops/s over " + baseline +
         "'s on the same workload. us/op: per thread doing the counted ops. B/entry: arena "
         "bytes used + ApproximateMemoryUsage, per entry" +
         (flags.face == BenchFace::kStandalone
              ? std::string(" (rep level: rows); memrep's reps through memrep::MemTable: "
                            "MemoryUsage() (arena blocks + the rep's own), per entry")
              : std::string()) +
         (flags.face == BenchFace::kTrieTable
              ? std::string(" (rep level: rows); memrep's reps from a trie table: the file's "
                            "bytes per entry; create us: TrieTable::Open")
              : std::string()) +
         ". p50/p99/p99.9: sampled latency of one op (- : too few ops to sample). bg s/M: CPU "
         "seconds of memrep's background pool per million entries, from the rep's creation to its "
         "destruction (0 for a rep with no background work or threads of its own).\n";
  return out;
}

Status WriteJson(const std::string& path, const Flags& flags, const std::vector<RunRecord>& runs,
                 const std::vector<Summary>& summaries) {
  std::ofstream out(path);
  if (!out) return Status::InvalidArgument("could not open " + path + " for writing");
  const std::vector<Metric>& metrics = Metrics();
  out << "{\n  \"config\": {"
      << "\"benchmarks\": " << JsonString(JoinList(flags.benchmarks))
      << ", \"memtablerep\": " << JsonString(JoinList(flags.reps))
      << ", \"num_operations\": " << flags.num_operations
      << ", \"num_threads\": " << flags.num_threads << ", \"item_size\": " << flags.item_size
      << ", \"key_size\": " << flags.key_size << ", \"shared_prefix\": " << flags.shared_prefix
      << ", \"face\": " << JsonString(FaceName(flags.face))
      << ", \"batch_size\": " << flags.batch_size << ", \"num_scans\": " << flags.num_scans
      << ", \"seed\": " << flags.seed
      << ", \"key_distribution\": " << JsonString(DistributionName(flags))
      << ", \"read_miss_ratio\": " << Number(flags.read_miss_ratio)
      << ", \"versions_per_key\": " << flags.versions_per_key << ", \"repeats\": " << flags.repeats
      << ", \"bucket_count\": " << flags.bucket_count
      << ", \"prefix_length\": " << flags.prefix_length
      << ", \"write_buffer_size\": " << flags.write_buffer_size
      << ", \"arena_block_size\": " << flags.arena_block_size
      << ", \"rep_options\": " << JsonObject(flags.rep_options)
      << ", \"freeze_before_reads\": " << (flags.freeze_before_reads ? "true" : "false")
      << ", \"latency_sample_every\": " << flags.latency_sample_every << "},\n";
  out << "  \"baseline\": " << JsonString(BaselineRep(flags.reps)) << ",\n  \"runs\": [";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    out << (i == 0 ? "\n" : ",\n") << "    {\"workload\": " << JsonString(r.workload)
        << ", \"rep\": " << JsonString(r.rep) << ", \"repeat\": " << r.repeat
        << ", \"skipped\": " << (r.m.skipped ? "true" : "false")
        << ", \"note\": " << JsonString(r.m.note)
        << ", \"face\": " << JsonString(FaceName(r.m.face));
    for (const Metric& metric : metrics)
      out << ", \"" << metric.name << "\": " << Number(metric.get(r.m));
    out << "}";
  }
  out << "\n  ],\n  \"summary\": [";
  for (size_t i = 0; i < summaries.size(); ++i) {
    const Summary& s = summaries[i];
    out << (i == 0 ? "\n" : ",\n") << "    {\"workload\": " << JsonString(s.workload)
        << ", \"rep\": " << JsonString(s.rep) << ", \"runs\": " << s.runs
        << ", \"note\": " << JsonString(s.note) << ", \"face\": " << JsonString(FaceName(s.face))
        << ", \"ratio_to_baseline\": " << Number(s.ratio);
    for (size_t k = 0; k < metrics.size(); ++k) {
      out << ", \"" << metrics[k].name << "\": " << Number(s.medians[k]);
    }
    out << "}";
  }
  out << "\n  ]\n}\n";
  return Written(out, path);
}

Status WriteCsv(const std::string& path, const std::vector<RunRecord>& runs,
                const std::vector<Summary>& summaries) {
  std::ofstream out(path);
  if (!out) return Status::InvalidArgument("could not open " + path + " for writing");
  const std::vector<Metric>& metrics = Metrics();
  out << "workload,rep,repeat,skipped,ratio_to_baseline";
  for (const Metric& metric : metrics) out << "," << metric.name;
  out << ",note,face\n";
  for (const RunRecord& r : runs) {
    out << CsvField(r.workload) << "," << CsvField(r.rep) << "," << r.repeat << ","
        << (r.m.skipped ? 1 : 0) << ",";
    for (const Metric& metric : metrics) out << "," << Number(metric.get(r.m));
    out << "," << CsvField(r.m.note) << "," << FaceName(r.m.face) << "\n";
  }
  for (const Summary& s : summaries) {
    out << CsvField(s.workload) << "," << CsvField(s.rep) << ",median," << (s.runs == 0 ? 1 : 0)
        << "," << Number(s.ratio);
    for (double v : s.medians) out << "," << Number(v);
    out << "," << CsvField(s.note) << "," << FaceName(s.face) << "\n";
  }
  return Written(out, path);
}

}  // namespace memrep::bench
