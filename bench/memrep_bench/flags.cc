#include "flags.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string_view>

#include "entry_codec.h"
#include "reps.h"
#include "workloads.h"

namespace memrep::bench {
namespace {

using Setter = std::function<Status(std::string_view value)>;

struct FlagDef {
  std::string name;
  std::string help;
  std::string default_value;
  Setter set;
  bool is_bool = false;
};

Status Bad(std::string_view name, std::string_view value, std::string_view want) {
  return Status::InvalidArgument("--" + std::string(name) + "=" + std::string(value) + ": " +
                                 std::string(want));
}

Setter Unsigned(std::string_view name, uint64_t* out, uint64_t lo, uint64_t hi) {
  return [=](std::string_view v) {
    uint64_t x = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
      return Bad(name, v, "not a non-negative whole number");
    }
    if (x < lo || x > hi) {
      return Bad(name, v, "out of range; use " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    *out = x;
    return Status::OK();
  };
}

Setter Unsigned32(std::string_view name, uint32_t* out, uint32_t lo, uint32_t hi) {
  return [=](std::string_view v) {
    uint64_t x = 0;
    Status s = Unsigned(name, &x, lo, hi)(v);
    if (s.ok()) *out = static_cast<uint32_t>(x);
    return s;
  };
}

std::string Number(double x) {
  std::string s = std::to_string(x);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// A fraction in [lo, hi] (open at an end if the flag says so).
Setter Fraction(std::string_view name, double* out, double lo, double hi, bool open) {
  return [=](std::string_view v) {
    double x = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
      return Bad(name, v, "not a number");
    }
    const bool inside = open ? (x > lo && x < hi) : (x >= lo && x <= hi);
    if (!inside) {
      return Bad(name, v,
                 std::string("out of range; use ") + (open ? "(" : "[") + Number(lo) + ", " +
                     Number(hi) + (open ? ")" : "]"));
    }
    *out = x;
    return Status::OK();
  };
}

Setter Bool(std::string_view name, bool* out) {
  return [=](std::string_view v) {
    if (v == "true" || v == "1") {
      *out = true;
    } else if (v == "false" || v == "0") {
      *out = false;
    } else {
      return Bad(name, v, "use true or false");
    }
    return Status::OK();
  };
}

Setter Text(std::string* out) {
  return [=](std::string_view v) {
    *out = std::string(v);
    return Status::OK();
  };
}

std::vector<std::string> SplitList(std::string_view v) {
  std::vector<std::string> items;
  while (true) {
    const size_t comma = v.find(',');
    items.emplace_back(v.substr(0, comma));
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return items;
}

// A comma list of names from `known` ("all" for every one); canonical() maps
// an accepted spelling to its name, or "" if unknown.
Setter NameList(std::string_view name, std::vector<std::string>* out,
                const std::vector<std::string>& known,
                std::function<std::string(std::string_view)> canonical) {
  return [=](std::string_view v) {
    if (v == "all") {
      *out = known;
      return Status::OK();
    }
    std::vector<std::string> names;
    for (const std::string& item : SplitList(v)) {
      const std::string canon = canonical(item);
      if (canon.empty()) {
        return Bad(name, v, "'" + item + "' is not one of " + JoinList(known) + " (or all)");
      }
      if (std::find(names.begin(), names.end(), canon) != names.end()) {
        return Bad(name, v, "'" + item + "' is listed twice");
      }
      names.push_back(canon);
    }
    *out = std::move(names);
    return Status::OK();
  };
}

// --memtablerep: a comma list of reps ("all" for every one), each a name,
// an alias or a memrep options string (reps.h); a rep named twice is refused.
Setter RepList(Flags* f) {
  return [f](std::string_view v) {
    if (v == "all") {
      f->reps = KnownRepNames();
      f->rep_options.clear();
      return Status::OK();
    }
    std::vector<std::string> names;
    std::map<std::string, std::string> options;
    for (const std::string& item : SplitList(v)) {
      RepChoice choice;
      Status s = ResolveRep(item, &choice);
      if (!s.ok()) return Bad("memtablerep", v, s.message());
      if (std::find(names.begin(), names.end(), choice.name) != names.end()) {
        return Bad("memtablerep", v, "'" + item + "' names " + choice.name + ", listed twice");
      }
      names.push_back(choice.name);
      if (!choice.options.empty()) options[choice.name] = choice.options;
    }
    f->reps = std::move(names);
    f->rep_options = std::move(options);
    return Status::OK();
  };
}

std::string WorkloadName(std::string_view word) {
  for (const WorkloadInfo& w : KnownWorkloads()) {
    if (word == w.name) return w.name;
  }
  return "";
}

std::vector<std::string> WorkloadNames() {
  std::vector<std::string> names;
  for (const WorkloadInfo& w : KnownWorkloads()) names.push_back(w.name);
  return names;
}

std::vector<FlagDef> Definitions(Flags* f) {
  constexpr uint64_t kMaxOps = std::numeric_limits<int32_t>::max();  // key numbers fit 32 bits
  return {
      {"benchmarks",
       "comma list of workloads, run in this order (all: every one): " + JoinList(WorkloadNames()),
       JoinList(f->benchmarks),
       NameList("benchmarks", &f->benchmarks, WorkloadNames(), WorkloadName)},
      {"memtablerep",
       "comma list of reps, alternated within every repetition (all: every one): " +
           JoinList(KnownRepNames()) +
           "; a memrep rep may be given as an options string, id=<rep>;<option>=<value>;... "
           "(the list splits on commas only; --list_reps shows every rep, its names and traits)",
       JoinList(f->reps), RepList(f)},
      {"num_operations", "operations per run; also the number of keys the read workloads fill",
       std::to_string(f->num_operations),
       Unsigned("num_operations", &f->num_operations, 1, kMaxOps)},
      {"num_threads",
       "threads of the read workloads, and of concurrentfill, readwrite, seekwhilewriting "
       "(at least 2 there: 1 writer + readers)",
       std::to_string(f->num_threads), Unsigned32("num_threads", &f->num_threads, 1, 256)},
      {"item_size", "value size in bytes", std::to_string(f->item_size),
       Unsigned32("item_size", &f->item_size, 0, 1 << 24)},
      {"key_size",
       "user key size in bytes: an 8-byte big-endian number, then zeros (with --shared_prefix: "
       "the prefix, then the number)",
       std::to_string(f->key_size), Unsigned32("key_size", &f->key_size, 8, 1 << 16)},
      {"shared_prefix",
       "0: keys as --key_size says; N > 0: every key is N bytes of one shared text, then the key "
       "number big-endian in the other key_size - N bytes (at least " +
           std::to_string(kMinSharedSuffixBytes) + "), zero-padded on the left",
       std::to_string(f->shared_prefix),
       Unsigned32("shared_prefix", &f->shared_prefix, 0, 1 << 16)},
      {"face",
       "rep: every rep through rocksdb::MemTableRep (rows); standalone: memrep's reps through "
       "memrep::MemTable (no RocksDB), RocksDB's reps still at the rep level (noted in the table); "
       "trie_table: read workloads on memrep::TrieTable, a trie memtable frozen into a table file "
       "in --table_dir (reps that make no table and other workloads are skipped)",
       FaceName(f->face),
       [f](std::string_view v) {
         if (v == "rep") {
           f->face = BenchFace::kRep;
         } else if (v == "standalone") {
           f->face = BenchFace::kStandalone;
         } else if (v == "trie_table") {
           f->face = BenchFace::kTrieTable;
         } else {
           return Bad("face", v, "use rep, standalone or trie_table");
         }
         return Status::OK();
       }},
      {"batch_size", "fillbatch: records per batch; multiget: keys per batch",
       std::to_string(f->batch_size), Unsigned32("batch_size", &f->batch_size, 1, 1 << 20)},
      {"num_scans", "Next() calls after each seek; full scans per thread in readseq",
       std::to_string(f->num_scans), Unsigned32("num_scans", &f->num_scans, 0, 1 << 20)},
      {"seed", "seed of every key choice (the same keys for every rep and repetition)",
       std::to_string(f->seed), Unsigned("seed", &f->seed, 0, UINT64_MAX)},
      {"key_distribution", "uniform or zipfian: the keys reads and overwrites choose", "uniform",
       [f](std::string_view v) {
         if (v == "uniform") {
           f->key_distribution = KeyDistribution::kUniform;
         } else if (v == "zipfian") {
           f->key_distribution = KeyDistribution::kZipfian;
         } else {
           return Bad("key_distribution", v, "use uniform or zipfian");
         }
         return Status::OK();
       }},
      {"zipf_theta", "skew of the zipfian distribution, in (0, 1)", Number(f->zipf_theta),
       Fraction("zipf_theta", &f->zipf_theta, 0, 1, /*open=*/true)},
      {"read_miss_ratio", "share of point reads and seeks that target an absent key",
       Number(f->read_miss_ratio), Fraction("read_miss_ratio", &f->read_miss_ratio, 0, 1, false)},
      {"versions_per_key", "overwrite: average versions per key (keys = num_operations / this)",
       std::to_string(f->versions_per_key),
       Unsigned32("versions_per_key", &f->versions_per_key, 1, 1 << 30)},
      {"repeats", "repetitions of every (workload, rep); the table shows medians",
       std::to_string(f->repeats), Unsigned32("repeats", &f->repeats, 1, 1000)},
      {"json", "write every run and the medians to this JSON file", "", Text(&f->json_path)},
      {"csv", "write every run and the medians to this CSV file", "", Text(&f->csv_path)},
      {"bucket_count", "buckets of RocksDB's hash reps (hash_skiplist, hash_linkedlist)",
       std::to_string(f->bucket_count), Unsigned("bucket_count", &f->bucket_count, 1, 1u << 30)},
      {"prefix_length", "prefix extractor of the hash reps: fixed prefix of this many bytes",
       std::to_string(f->prefix_length),
       Unsigned32("prefix_length", &f->prefix_length, 1, 1 << 16)},
      {"write_buffer_size",
       "the column family write_buffer_size every rep factory is validated for (ValidateOptions, "
       "as a database opens; the standalone face sizes memrep's reps from it); 0: what the run "
       "will hold, at least 65536",
       std::to_string(f->write_buffer_size),
       Unsigned("write_buffer_size", &f->write_buffer_size, 0, uint64_t{1} << 40)},
      {"arena_block_size", "block size of the allocator shim, bytes",
       std::to_string(f->arena_block_size),
       Unsigned("arena_block_size", &f->arena_block_size, 4096, uint64_t{1} << 30)},
      {"freeze_before_reads",
       "MarkReadOnly() after the fill of readrandom, readseq and seekrandom (as a memtable "
       "waiting for its flush); lets vector serve point reads",
       "false", Bool("freeze_before_reads", &f->freeze_before_reads), true},
      {"table_dir",
       "--face=trie_table: the directory its table files are made in (one per run, removed "
       "after it)",
       f->table_dir, Text(&f->table_dir)},
      {"latency_sample_every", "time about one operation in this many (0: no percentiles)",
       std::to_string(f->latency_sample_every),
       Unsigned32("latency_sample_every", &f->latency_sample_every, 0, 1 << 20)},
      {"progress", "a progress line on stderr for runs longer than 2 s", "true",
       Bool("progress", &f->progress), true},
      {"list_reps",
       "print every rep as JSON (bench name, canonical name, aliases, whether it is memrep's, "
       "traits) and exit",
       "false", Bool("list_reps", &f->list_reps), true},
      {"calibrate_auto",
       "measure memrep.Auto's cost table on this machine (every memrep rep: fillrandom, "
       "concurrentfill, fillbatch, readrandom, seekrandom, readseq; --num_operations, --repeats, "
       "--item_size, --key_size apply), print it and the prior= option that pins it, and exit",
       "false", Bool("calibrate_auto", &f->calibrate_auto), true},
  };
}

}  // namespace

RepConfig RepConfigOf(const Flags& flags) {
  RepConfig config;
  config.bucket_count = flags.bucket_count;
  config.prefix_length = flags.prefix_length;
  config.write_buffer_size = flags.write_buffer_size;
  config.rep_options = flags.rep_options;
  config.arena_block_size = flags.arena_block_size;
  return config;
}

std::string DefaultTableDir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

const char* FaceName(BenchFace face) {
  switch (face) {
    case BenchFace::kStandalone:
      return "standalone";
    case BenchFace::kTrieTable:
      return "trie_table";
    case BenchFace::kRep:
      break;
  }
  return "rep";
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

Status ParseFlags(int argc, const char* const* argv, Flags* flags, bool* help) {
  *help = false;
  std::vector<FlagDef> defs = Definitions(flags);
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    const std::string_view original = arg;
    if (arg == "--help" || arg == "-help" || arg == "-h") {
      *help = true;
      return Status::OK();
    }
    if (arg.starts_with("--")) {
      arg.remove_prefix(2);
    } else if (arg.starts_with("-")) {
      arg.remove_prefix(1);
    } else {
      return Status::InvalidArgument("unexpected argument '" + std::string(original) +
                                     "'; flags are --name=value (see --help)");
    }
    const size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    auto def =
        std::find_if(defs.begin(), defs.end(), [&](const FlagDef& d) { return d.name == name; });
    if (def == defs.end()) {
      return Status::InvalidArgument("unknown flag '" + std::string(original) + "' (see --help)");
    }
    if (eq == std::string_view::npos) {
      if (!def->is_bool) {
        return Status::InvalidArgument("--" + std::string(name) + " needs a value: --" +
                                       std::string(name) + "=...");
      }
      Status s = def->set("true");
      if (!s.ok()) return s;
      continue;
    }
    Status s = def->set(arg.substr(eq + 1));
    if (!s.ok()) return s;
  }
  if (flags->write_buffer_size != 0 && flags->write_buffer_size < 4096) {
    return Status::InvalidArgument(
        "--write_buffer_size=" + std::to_string(flags->write_buffer_size) +
        ": use 0 (size for the run) or at least 4096");
  }
  if (flags->prefix_length > flags->key_size) {
    return Status::InvalidArgument("--prefix_length=" + std::to_string(flags->prefix_length) +
                                   " is longer than --key_size=" + std::to_string(flags->key_size) +
                                   ": the hash reps' prefix must lie within the user key");
  }
  if (flags->shared_prefix > 0 && flags->shared_prefix + kMinSharedSuffixBytes > flags->key_size) {
    return Status::InvalidArgument(
        "--shared_prefix=" + std::to_string(flags->shared_prefix) + " leaves " +
        (flags->shared_prefix >= flags->key_size
             ? std::string("no byte")
             : std::to_string(flags->key_size - flags->shared_prefix) + " byte(s)") +
        " of --key_size=" + std::to_string(flags->key_size) + " for the key number, which needs " +
        std::to_string(kMinSharedSuffixBytes) + ": use --shared_prefix of at most key_size - " +
        std::to_string(kMinSharedSuffixBytes) + ", or a larger --key_size");
  }
  return Status::OK();
}

std::string Usage() {
  Flags defaults;
  std::string out =
      "memrep_bench: memtable reps side by side at the rep level (see bench/README.md)\n"
      "usage: memrep_bench [--name=value ...]\n\n";
  for (const FlagDef& d : Definitions(&defaults)) {
    out += "  --" + d.name + " (default: " + (d.default_value.empty() ? "none" : d.default_value) +
           ")\n      " + d.help + "\n";
  }
  out += "\nexit status: 0 all checks passed, 1 a workload's check failed, 2 bad flags\n";
  return out;
}

}  // namespace memrep::bench
