#include "reps.h"

#include <rocksdb/options.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "memrep/registry.h"
#include "memrep/rocksdb.h"
#include "memtable_rep_adapter.h"
#include "peers/peers.h"
#include "rep_factory.h"

namespace memrep::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using Clock = std::chrono::steady_clock;
using Cost = RepTraits::Cost;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// One of RocksDB's own reps, or a peer (peers/peers.h).
struct RocksDbRep {
  KnownRep info;
  // Buckets entries by a key prefix: takes --bucket_count, and a fixed
  // prefix extractor of --prefix_length bytes.
  bool hashed = false;
  std::function<rdb::MemTableRepFactory*(const RepConfig& config)> make;
};

// RocksDB's reps, RocksDB's default first, then the peers this bench was
// built with. Their traits are what their factories declare
// (IsInsertConcurrentlySupported, CanHandleDuplicatedKey;
// tests/bench_reps_test.cc checks both) and what their code costs.
std::vector<RocksDbRep> MakeRocksDbReps() {
  std::vector<RocksDbRep> reps = {
      {{"skip_list",
        rdb::SkipListFactory::kClassName(),
        {"skiplist"},
        "RocksDB's default: a lock-free skip list (rocksdb::SkipListFactory)",
        /*memrep=*/false,
        RepTraits{.concurrent_insert = true,
                  .duplicates = RepTraits::Duplicates::kAll,
                  .point_read_while_mutable = Cost::kLogarithmic,
                  .new_iterator_while_mutable = Cost::kConstant}},
       /*hashed=*/false,
       [](const RepConfig&) -> rdb::MemTableRepFactory* { return new rdb::SkipListFactory(); }},
      // Every Get or new iterator on a mutable vector sorts a copy of it.
      {{"vector",
        rdb::VectorRepFactory::kClassName(),
        {},
        "an unsorted vector, sorted when read (rocksdb::VectorRepFactory)",
        /*memrep=*/false,
        RepTraits{.concurrent_insert = false,
                  .point_read_while_mutable = Cost::kLinear,
                  .new_iterator_while_mutable = Cost::kLinear}},
       /*hashed=*/false,
       [](const RepConfig&) -> rdb::MemTableRepFactory* { return new rdb::VectorRepFactory(); }},
      // A hash probe to the prefix's bucket, then a search of that bucket;
      // a total-order iterator copies every entry into a new sorted list.
      {{"hash_skiplist",
        "HashSkipListRepFactory",
        {"prefix_hash", "hashskiplist"},
        "a skip list per key-prefix bucket (rocksdb::NewHashSkipListRepFactory)",
        /*memrep=*/false,
        RepTraits{.concurrent_insert = false,
                  .point_read_while_mutable = Cost::kConstant,
                  .new_iterator_while_mutable = Cost::kLinear}},
       /*hashed=*/true,
       [](const RepConfig& config) { return rdb::NewHashSkipListRepFactory(config.bucket_count); }},
      {{"hash_linkedlist",
        "HashLinkListRepFactory",
        {"hashlinklist"},
        "a linked list (a skip list past 256 entries) per key-prefix bucket "
        "(rocksdb::NewHashLinkListRepFactory)",
        /*memrep=*/false,
        RepTraits{.concurrent_insert = false,
                  .point_read_while_mutable = Cost::kConstant,
                  .new_iterator_while_mutable = Cost::kLinear}},
       /*hashed=*/true,
       [](const RepConfig& config) {
         // No bucket-distribution logging: the bench passes no logger.
         return rdb::NewHashLinkListRepFactory(config.bucket_count, 0, 4096, false);
       }},
  };
  for (const PeerRep& peer : PeerReps()) {
    reps.push_back({{peer.name, peer.canonical_name, peer.aliases, peer.description,
                     /*memrep=*/false, peer.traits},
                    /*hashed=*/false,
                    [make = peer.make](const RepConfig&) { return make(); }});
  }
  return reps;
}

const std::vector<RocksDbRep>& RocksDbReps() {
  static const std::vector<RocksDbRep> reps = MakeRocksDbReps();
  return reps;
}

const RocksDbRep* FindRocksDbRep(std::string_view name) {
  for (const RocksDbRep& rep : RocksDbReps()) {
    if (rep.info.name == name) return &rep;
  }
  return nullptr;
}

bool Names(const KnownRep& rep, std::string_view word) {
  return rep.name == word || rep.canonical_name == word ||
         std::find(rep.aliases.begin(), rep.aliases.end(), word) != rep.aliases.end();
}

// The rep an options string names ("id=<name>;..." or "<name>:<value>"),
// for a message about a string memrep refused.
std::string_view RepNameOf(std::string_view word) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  if (word.find('=') == std::string_view::npos) return trim(word.substr(0, word.find(':')));
  while (!word.empty()) {
    const size_t end = std::min(word.find(';'), word.size());
    const std::string_view item = word.substr(0, end);
    word.remove_prefix(std::min(end + 1, word.size()));
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos && trim(item.substr(0, eq)) == "id") {
      return trim(item.substr(eq + 1));
    }
  }
  return {};
}

// The write_buffer_size a rep is validated (and memrep's reps sized) for:
// --write_buffer_size, else what the run will hold, at least
// kMinWriteBufferSize and at most what the rep can take.
uint64_t WriteBufferSizeFor(const RepConfig& config, uint64_t expected_arena_bytes,
                            const RepTraits& traits) {
  if (config.write_buffer_size != 0) return config.write_buffer_size;
  uint64_t write_buffer_size = std::max(expected_arena_bytes, RepConfig::kMinWriteBufferSize);
  if (traits.max_memtable_bytes != 0) {
    write_buffer_size = std::min(write_buffer_size, traits.max_memtable_bytes);
  }
  return write_buffer_size;
}

std::string Message(const rdb::Status& s) {
  return s.getState() != nullptr ? std::string(s.getState()) : s.ToString();
}

}  // namespace

std::vector<KnownRep> KnownReps() {
  std::vector<KnownRep> reps;
  for (const RocksDbRep& rep : RocksDbReps()) reps.push_back(rep.info);
  for (const RepInfo& info : ListReps()) {
    KnownRep rep;
    rep.name = info.aliases.empty() ? info.name : info.aliases.front();
    rep.canonical_name = info.name;
    for (const std::string& alias : info.aliases) {
      if (alias != rep.name) rep.aliases.push_back(alias);
    }
    rep.description = info.summary;
    // A standalone peer is in the registry, but is not memrep's.
    const StandalonePeer* peer = FindStandalonePeer(info.name);
    rep.memrep = peer == nullptr;
    rep.standalone_peer = peer != nullptr;
    rep.single_version = peer != nullptr && peer->single_version;
    rep.traits = info.traits;
    reps.push_back(std::move(rep));
  }
  return reps;
}

std::vector<std::string> KnownRepNames() {
  std::vector<std::string> names;
  for (const KnownRep& rep : KnownReps()) names.push_back(rep.name);
  return names;
}

std::vector<std::string> DefaultReps() {
  std::vector<std::string> names = {RocksDbReps().front().info.name};
  for (const KnownRep& rep : KnownReps()) {
    if (rep.memrep) {
      names.push_back(rep.name);
      break;
    }
  }
  return names;
}

Status ResolveRep(std::string_view word, RepChoice* out) {
  const std::vector<KnownRep> reps = KnownReps();
  for (const KnownRep& rep : reps) {
    if (Names(rep, word)) {
      *out = RepChoice{rep.name, ""};
      return Status::OK();
    }
  }
  std::string known;
  for (const KnownRep& rep : reps) known += (known.empty() ? "" : ",") + rep.name;
  if (word.find_first_of("=:") == std::string_view::npos) {
    return Status::InvalidArgument(
        "'" + std::string(word) + "' is not one of " + known +
        " (or all), nor a memrep options string (id=<rep>;<option>=<value>;...); "
        "memrep_bench --list_reps lists the reps and their names");
  }
  RepSpec spec;
  Status s = RepSpec::Parse(word, &spec);
  if (!s.ok()) {
    for (const RocksDbRep& rep : RocksDbReps()) {
      if (Names(rep.info, RepNameOf(word))) {
        return Status::InvalidArgument("'" + std::string(word) + "': " + rep.info.name +
                                       " is RocksDB's rep and takes no options string (its "
                                       "options are --bucket_count and --prefix_length)");
      }
    }
    return Status::InvalidArgument("'" + std::string(word) + "': " + s.message());
  }
  for (const KnownRep& rep : reps) {
    if ((rep.memrep || rep.standalone_peer) && rep.canonical_name == spec.name()) {
      *out = RepChoice{rep.name, std::string(word)};
      return Status::OK();
    }
  }
  return Status::InvalidArgument("'" + std::string(word) + "' names " + spec.name() +
                                 ", which memrep::ListReps() does not list");
}

Status RepFactory::Make(std::string_view word, const RepConfig& config,
                        uint64_t expected_arena_bytes, std::unique_ptr<RepFactory>* out) {
  RepChoice choice;
  Status s = ResolveRep(word, &choice);
  if (!s.ok()) return s;
  std::unique_ptr<RepFactory> f(new RepFactory());
  f->name_ = choice.name;
  f->arena_block_size_ = config.arena_block_size;
  if (const RocksDbRep* rocksdb_rep = FindRocksDbRep(choice.name)) {
    f->traits_ = rocksdb_rep->info.traits;
    f->factory_.reset(rocksdb_rep->make(config));
    f->description_ = std::string("rocksdb::") + f->factory_->Name();
    if (rocksdb_rep->hashed) {
      f->prefix_extractor_.reset(rdb::NewFixedPrefixTransform(config.prefix_length));
      f->description_ += ", bucket_count=" + std::to_string(config.bucket_count) +
                         ", fixed prefix " + std::to_string(config.prefix_length);
    }
  } else {
    std::string spec = choice.options;
    if (spec.empty()) {
      const auto given = config.rep_options.find(choice.name);
      spec = given != config.rep_options.end() ? given->second : choice.name;
    }
    RepSpec rep_spec;
    if (RepSpec::Parse(spec, &rep_spec).ok()) {
      if (const StandalonePeer* peer = FindStandalonePeer(rep_spec.name())) {
        // No RocksDB factory: memrep::MemTable opens it from the options string.
        f->traits_ = rep_spec.traits();
        f->standalone_peer_ = true;
        f->single_version_ = peer->single_version;
        f->memrep_options_ = spec;
        f->description_ = rep_spec.ToString();
        const uint64_t write_buffer_size =
            WriteBufferSizeFor(config, expected_arena_bytes, f->traits_);
        s = rep_spec.CheckWriteBufferSize(write_buffer_size);
        if (!s.ok()) {
          return Status::InvalidArgument(f->name_ + ": write_buffer_size=" +
                                         std::to_string(write_buffer_size) + ": " + s.message());
        }
        f->write_buffer_size_ = write_buffer_size;
        f->description_ += " (a standalone peer, --face=standalone only; write_buffer_size=" +
                           std::to_string(write_buffer_size) + ")";
        *out = std::move(f);
        return Status::OK();
      }
    }
    rdb::Status rs = rocksdb_plugin::NewRepFactory(spec, &f->factory_);
    if (!rs.ok()) return Status::InvalidArgument(choice.name + ": " + Message(rs));
    const auto* plugin = dynamic_cast<const rocksdb_plugin::RepFactory*>(f->factory_.get());
    if (plugin == nullptr) {
      return Status::InvalidArgument(choice.name + ": rocksdb_plugin::NewRepFactory('" + spec +
                                     "') built no memrep factory");
    }
    f->traits_ = plugin->spec().traits();
    f->memrep_ = true;
    f->memrep_options_ = spec;
    f->description_ = plugin->spec().ToString();
  }

  // Validate the factory for a column family as RocksDB does when a
  // database opens (memrep's reps refuse nothing there, and size themselves
  // as they fill; the standalone face passes the size on).
  const uint64_t write_buffer_size = WriteBufferSizeFor(config, expected_arena_bytes, f->traits_);
  rdb::ColumnFamilyOptions cf_options;
  cf_options.write_buffer_size = write_buffer_size;
  cf_options.prefix_extractor = f->prefix_extractor_;
  rdb::Status rs = f->factory_->ValidateOptions(rdb::DBOptions(), cf_options);
  if (!rs.ok()) {
    return Status::InvalidArgument(f->name_ + ": ValidateOptions with write_buffer_size=" +
                                   std::to_string(write_buffer_size) + ": " + Message(rs));
  }
  f->write_buffer_size_ = write_buffer_size;
  if (f->memrep_) {
    f->description_ +=
        " (validated for write_buffer_size=" + std::to_string(write_buffer_size) + ")";
  }
  *out = std::move(f);
  return Status::OK();
}

Status RepFactory::NewRep(std::unique_ptr<BenchRep>* out) const {
  if (standalone_peer_) {
    return Status::InvalidArgument(
        name_ + " is a standalone peer: it has no RocksDB face (run it with --face=standalone)");
  }
  std::unique_ptr<BenchRep> rep(new BenchRep());
  rep->order_ = order_;
  rep->prefix_extractor_ = prefix_extractor_;
  const Clock::time_point start = Clock::now();
  rep->arena_ = std::make_unique<ShimArena>(arena_block_size_);
  rep->rep_.reset(factory_->CreateMemTableRep(*order_, rep->arena_.get(), prefix_extractor_.get(),
                                              /*logger=*/nullptr, /*column_family_id=*/0));
  rep->create_micros_ = MicrosSince(start);
  if (rep->rep_ == nullptr) return Status::InvalidArgument(name_ + ": the factory made no rep");
  // memrep's factories fall back to RocksDB's skip list when they cannot
  // serve the key order or build the rep: measuring that under this name
  // would be a lie.
  if (memrep_ && dynamic_cast<rocksdb_plugin::MemTableRepAdapter*>(rep->rep_.get()) == nullptr) {
    return Status::InvalidArgument(
        name_ +
        ": the factory built another rep (its skip-list fallback: it found the key order not "
        "bytewise, or could not build the rep)");
  }
  *out = std::move(rep);
  return Status::OK();
}

double BenchRep::Destroy() {
  if (rep_ == nullptr && arena_ == nullptr) return 0;
  const Clock::time_point start = Clock::now();
  rep_.reset();
  arena_.reset();
  return MicrosSince(start);
}

}  // namespace memrep::bench
