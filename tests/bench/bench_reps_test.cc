// Every rep memrep_bench drives — RocksDB's own and every rep of memrep's
// registry — runs correctly on the allocator shim, the key comparator and the
// lookup keys of the bench: inserts, Gets with RocksDB's callback protocol,
// ordered iteration, seeks. The catalogue lists every registered rep with its
// traits, accepts every name of a rep, and builds a memrep rep with the
// options an options string gives it, sized by ValidateOptions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "entry_codec.h"
#include "flags.h"
#include "key_generator.h"
#include "memrep/registry.h"
#include "report.h"
#include "reps.h"
#include "workload_ops.h"

namespace memrep::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

const KnownRep* FindKnown(std::string_view name) {
  static const std::vector<KnownRep> reps = KnownReps();
  for (const KnownRep& rep : reps) {
    if (rep.name == name) return &rep;
  }
  return nullptr;
}

// Bench names of the reps whose traits satisfy `want`.
std::vector<std::string> RepsWhere(bool (*want)(const RepTraits&)) {
  std::vector<std::string> names;
  for (const KnownRep& rep : KnownReps()) {
    if (want(rep.traits)) names.push_back(rep.name);
  }
  return names;
}

// A test name from a rep's bench name ("memrep.X" is not a valid one).
std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class BenchRepTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    RepConfig config;
    config.bucket_count = 1024;
    config.arena_block_size = 64 * 1024;
    Status s = RepFactory::Make(GetParam(), config, 1 << 20, &factory_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = factory_->NewRep(&rep_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  const KeyCodec keys_{16};
  const ValuePool values_{32, 9};
  std::unique_ptr<RepFactory> factory_;
  std::unique_ptr<BenchRep> rep_;
};

// Everything a Get visits for a key, until the user key changes.
struct Visit {
  const KeyCodec* keys;
  uint64_t key_number;
  std::vector<SequenceNumber> seqs;
};

bool CollectVersions(void* arg, const char* entry) {
  auto* visit = static_cast<Visit*>(arg);
  const DecodedEntry e = DecodeBenchEntry(entry, *visit->keys);
  if (!e.ours || e.key_number != visit->key_number) return false;
  visit->seqs.push_back(e.seq);
  return true;  // as RocksDB does for merge operands: keep going
}

// 300 keys (even numbers), 3 versions each, inserted in a random order; then
// Gets, snapshot Gets, a full scan and seeks check what the rep holds.
void CheckInsertGetIterate(BenchRep& rep, const KeyCodec& keys, const ValuePool& values,
                           const std::string& what) {
  constexpr uint64_t kKeys = 300, kVersions = 3;
  std::vector<std::pair<uint64_t, SequenceNumber>> puts;
  for (uint64_t k = 0; k < kKeys; ++k) {
    for (uint64_t v = 0; v < kVersions; ++v) puts.emplace_back(2 * k, 1 + k + v * kKeys);
  }
  Random64 rng(5);
  for (size_t i = puts.size(); i > 1; --i) std::swap(puts[i - 1], puts[rng.Uniform(i)]);
  Inserter inserter(rep.rep(), keys, values, /*concurrent=*/false);
  for (auto [key, seq] : puts) ASSERT_TRUE(inserter.Put(key, seq)) << what;

  // Get: the newest version first, then the older ones, in order.
  PointReader reader(rep.rep(), keys, values);
  LookupTarget target(keys);
  for (uint64_t k = 0; k < kKeys; ++k) {
    const GetResult got = reader.Get(2 * k);
    ASSERT_TRUE(got.found) << what << " key " << 2 * k;
    EXPECT_EQ(got.seq, 1 + k + (kVersions - 1) * kKeys) << what;
    EXPECT_TRUE(got.value_ok) << what;
    EXPECT_FALSE(reader.Get(2 * k + 1).found) << what << " absent key " << 2 * k + 1;

    // At a snapshot between the versions: the versions at or below it.
    Visit visit{&keys, 2 * k, {}};
    target.Set(2 * k, 1 + k + kKeys);
    rep.rep().Get(target.lookup_key(), &visit, &CollectVersions);
    EXPECT_EQ(visit.seqs, (std::vector<SequenceNumber>{1 + k + kKeys, 1 + k})) << what << 2 * k;
  }

  // Iteration: every version, in internal-key order.
  uint64_t count = 0;
  ASSERT_TRUE(ScanInOrder(
                  rep.rep(), keys, [](const DecodedEntry&) { return Status::OK(); }, &count)
                  .ok())
      << what;
  EXPECT_EQ(count, kKeys * kVersions) << what;

  // Seek to an absent key lands on the next present one, newest version first.
  std::unique_ptr<rdb::MemTableRep::Iterator> it(rep.rep().GetIterator(nullptr));
  target.Set(101);
  it->Seek(target.internal_key(), target.memtable_key());
  ASSERT_TRUE(it->Valid()) << what;
  DecodedEntry e = DecodeBenchEntry(it->key(), keys);
  EXPECT_EQ(e.key_number, 102u) << what;
  EXPECT_EQ(e.seq, 1 + 51 + 2 * kKeys) << what;
  it->Next();
  EXPECT_EQ(DecodeBenchEntry(it->key(), keys).seq, 1 + 51 + kKeys) << what;
  it->SeekToLast();
  ASSERT_TRUE(it->Valid()) << what;
  EXPECT_EQ(DecodeBenchEntry(it->key(), keys).key_number, 2 * (kKeys - 1)) << what;

  EXPECT_GE(rep.MemoryBytes(), kKeys * kVersions * RowSize(16, 32)) << what;
}

TEST_P(BenchRepTest, InsertGetIterateInOrder) {
  CheckInsertGetIterate(*rep_, keys_, values_, GetParam());
  EXPECT_GE(rep_->Destroy(), 0);
}

// The traits the bench reads agree with what the factory itself declares,
// and the factory is the one the catalogue names.
TEST_P(BenchRepTest, TraitsAreTheFactorysOwn) {
  const KnownRep* known = FindKnown(GetParam());
  ASSERT_NE(known, nullptr);
  const rdb::MemTableRepFactory& factory = factory_->rocksdb_factory();
  EXPECT_EQ(factory_->name(), known->name);
  EXPECT_EQ(factory.Name(), known->canonical_name);
  EXPECT_EQ(factory_->memrep(), known->memrep);
  EXPECT_EQ(factory_->traits().concurrent_insert, factory.IsInsertConcurrentlySupported());
  EXPECT_EQ(factory_->traits().detects_duplicates(), factory.CanHandleDuplicatedKey());
  EXPECT_EQ(factory_->traits().concurrent_insert, known->traits.concurrent_insert);
  EXPECT_EQ(factory_->traits().point_read_while_mutable, known->traits.point_read_while_mutable);
  EXPECT_EQ(factory_->traits().new_iterator_while_mutable,
            known->traits.new_iterator_while_mutable);
}

class ConcurrentRepTest : public BenchRepTest {};

TEST_P(ConcurrentRepTest, ConcurrentInserts) {
  ASSERT_TRUE(factory_->traits().concurrent_insert);
  constexpr uint64_t kPerThread = 2000;
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      Inserter inserter(rep_->rep(), keys_, values_, /*concurrent=*/true);
      for (uint64_t i = 0; i < kPerThread; ++i) {
        const uint64_t index = 2 * i + t;  // the threads interleave in key order
        ASSERT_TRUE(inserter.Put(2 * index, index + 1));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  uint64_t count = 0, expected = 0;
  Status s = ScanInOrder(
      rep_->rep(), keys_,
      [&](const DecodedEntry& e) {
        if (e.key_number != 2 * expected || e.seq != expected + 1) {
          return Status::InvalidArgument("wrong entry");
        }
        ++expected;
        return Status::OK();
      },
      &count);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(count, 2 * kPerThread);
}

class DuplicateDetectingRepTest : public BenchRepTest {};

TEST_P(DuplicateDetectingRepTest, DuplicatesAreRefused) {
  ASSERT_TRUE(factory_->traits().detects_duplicates());
  Inserter inserter(rep_->rep(), keys_, values_, /*concurrent=*/false);
  EXPECT_TRUE(inserter.Put(10, 3));
  EXPECT_FALSE(inserter.Put(10, 3));
  EXPECT_TRUE(inserter.Put(10, 4));
}

INSTANTIATE_TEST_SUITE_P(EveryRep, BenchRepTest, ::testing::ValuesIn(KnownRepNames()), TestName);
INSTANTIATE_TEST_SUITE_P(ConcurrentReps, ConcurrentRepTest,
                         ::testing::ValuesIn(RepsWhere([](const RepTraits& t) {
                           return t.concurrent_insert;
                         })),
                         TestName);
INSTANTIATE_TEST_SUITE_P(DuplicateDetectingReps, DuplicateDetectingRepTest,
                         ::testing::ValuesIn(RepsWhere([](const RepTraits& t) {
                           return t.detects_duplicates();
                         })),
                         TestName);

TEST(BenchRepCatalogue, EveryNameResolvesToItsRep) {
  std::map<std::string, std::string> owner;  // accepted word -> bench name
  for (const KnownRep& rep : KnownReps()) {
    std::vector<std::string> words = rep.aliases;
    words.push_back(rep.name);
    words.push_back(rep.canonical_name);
    for (const std::string& word : words) {
      RepChoice choice;
      ASSERT_TRUE(ResolveRep(word, &choice).ok()) << word;
      EXPECT_EQ(choice.name, rep.name) << word;
      EXPECT_EQ(choice.options, "") << word;
      const auto [it, fresh] = owner.emplace(word, rep.name);
      EXPECT_TRUE(fresh || it->second == rep.name)
          << "'" << word << "' names both " << it->second << " and " << rep.name;
    }
  }
  RepChoice choice;
  EXPECT_TRUE(ResolveRep("btree", &choice).IsInvalidArgument());
  EXPECT_TRUE(ResolveRep("", &choice).IsInvalidArgument());
  std::unique_ptr<RepFactory> f;
  EXPECT_TRUE(RepFactory::Make("btree", RepConfig(), 1 << 20, &f).IsInvalidArgument());
  // --memtablerep=all and the default: RocksDB's default rep and memrep's first.
  EXPECT_EQ(KnownRepNames().size(), KnownReps().size());
  const std::vector<std::string> defaults = DefaultReps();
  ASSERT_EQ(defaults.size(), 2u);
  EXPECT_FALSE(FindKnown(defaults[0])->memrep);
  EXPECT_TRUE(FindKnown(defaults[1])->memrep);
}

// RocksDB's reps, as their code behaves (the traits the bench's skips follow).
TEST(BenchRepCatalogue, RocksDbRepsHaveTheirTraits) {
  using Cost = RepTraits::Cost;
  const KnownRep* skip_list = FindKnown("skip_list");
  ASSERT_NE(skip_list, nullptr);
  EXPECT_FALSE(skip_list->memrep);
  EXPECT_TRUE(skip_list->traits.concurrent_insert);
  EXPECT_EQ(skip_list->traits.point_read_while_mutable, Cost::kLogarithmic);
  const KnownRep* vector = FindKnown("vector");
  ASSERT_NE(vector, nullptr);
  EXPECT_FALSE(vector->traits.concurrent_insert);
  EXPECT_EQ(vector->traits.point_read_while_mutable, Cost::kLinear);
  EXPECT_EQ(vector->traits.new_iterator_while_mutable, Cost::kLinear);
  for (const char* name : {"hash_skiplist", "hash_linkedlist"}) {
    const KnownRep* hash = FindKnown(name);
    ASSERT_NE(hash, nullptr) << name;
    EXPECT_FALSE(hash->traits.concurrent_insert) << name;
    EXPECT_EQ(hash->traits.new_iterator_while_mutable, Cost::kLinear) << name;
  }
  EXPECT_EQ(FindKnown("hash_skiplist")->canonical_name, "HashSkipListRepFactory");
  RepChoice choice;
  ASSERT_TRUE(ResolveRep("prefix_hash", &choice).ok());
  EXPECT_EQ(choice.name, "hash_skiplist");
}

// Every rep of memrep's registry is known, under its first alias, with its
// registered traits, in KnownReps() and in --list_reps.
TEST(BenchRepCatalogue, ListsEveryMemrepRepWithItsTraits) {
  const std::vector<RepInfo> registered = ListReps();
  ASSERT_FALSE(registered.empty());
  const std::vector<KnownRep> known = KnownReps();
  const std::string json = RepListJson(known);
  std::vector<std::string> lines;
  std::istringstream in(json);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("  {")) lines.push_back(line);
  }
  EXPECT_EQ(lines.size(), known.size()) << json;
  EXPECT_TRUE(json.starts_with("{\"reps\": [")) << json;

  size_t memrep_reps = 0;
  for (const KnownRep& rep : known) memrep_reps += rep.memrep ? 1 : 0;
  EXPECT_EQ(memrep_reps, registered.size());

  for (const RepInfo& info : registered) {
    const auto rep = std::find_if(known.begin(), known.end(),
                                  [&](const KnownRep& k) { return k.canonical_name == info.name; });
    ASSERT_NE(rep, known.end()) << info.name << " is not in KnownReps()";
    EXPECT_TRUE(rep->memrep);
    EXPECT_EQ(rep->name, info.aliases.empty() ? info.name : info.aliases.front());
    for (const std::string& alias : info.aliases) {
      EXPECT_TRUE(alias == rep->name ||
                  std::find(rep->aliases.begin(), rep->aliases.end(), alias) != rep->aliases.end())
          << alias;
    }
    const RepTraits& t = info.traits;
    EXPECT_EQ(rep->traits.concurrent_insert, t.concurrent_insert);
    EXPECT_EQ(rep->traits.duplicates, t.duplicates);
    EXPECT_EQ(rep->traits.comparators, t.comparators);
    EXPECT_EQ(rep->traits.point_read_while_mutable, t.point_read_while_mutable);
    EXPECT_EQ(rep->traits.new_iterator_while_mutable, t.new_iterator_while_mutable);
    EXPECT_EQ(rep->traits.file_backed, t.file_backed);
    EXPECT_EQ(rep->traits.max_memtable_bytes, t.max_memtable_bytes);

    const auto line = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find("\"canonical_name\": \"" + info.name + "\"") != std::string::npos;
    });
    ASSERT_NE(line, lines.end()) << info.name << " is not in --list_reps:\n" << json;
    auto has = [&](const std::string& field) { return line->find(field) != std::string::npos; };
    auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
    EXPECT_TRUE(has("\"name\": \"" + rep->name + "\"")) << *line;
    EXPECT_TRUE(has("\"memrep\": true")) << *line;
    EXPECT_TRUE(has("\"concurrent_insert\": " + flag(t.concurrent_insert))) << *line;
    EXPECT_TRUE(has("\"detects_duplicates\": " + flag(t.detects_duplicates()))) << *line;
    EXPECT_TRUE(has("\"duplicates\": \"" + std::string(DuplicatesName(t.duplicates)) + "\""))
        << *line;
    EXPECT_TRUE(has("\"point_read_while_mutable\": \"" +
                    std::string(CostName(t.point_read_while_mutable)) + "\""))
        << *line;
    EXPECT_TRUE(has("\"new_iterator_while_mutable\": \"" +
                    std::string(CostName(t.new_iterator_while_mutable)) + "\""))
        << *line;
    EXPECT_TRUE(has("\"file_backed\": " + flag(t.file_backed))) << *line;
    EXPECT_TRUE(has("\"max_memtable_bytes\": " + std::to_string(t.max_memtable_bytes))) << *line;
  }
  // RocksDB's reps are listed too, as not memrep's.
  const auto skip_list = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("\"name\": \"skip_list\"") != std::string::npos;
  });
  ASSERT_NE(skip_list, lines.end());
  EXPECT_NE(skip_list->find("\"memrep\": false"), std::string::npos);
}

// An option of a memrep rep and a value for it other than its default, from
// the registry's option table: the first whole-number option without "auto".
bool PickOption(const RepInfo& info, std::string* name, std::string* value) {
  for (const OptionInfo& option : info.options) {
    if (option.type != "count" || option.default_value == "auto") continue;
    uint64_t lo = 0, hi = 0;
    const std::string& range = option.range;  // "lo..hi[ or auto]"
    const size_t dots = range.find("..");
    if (dots == std::string::npos) continue;
    std::from_chars(range.data(), range.data() + dots, lo);
    std::from_chars(range.data() + dots + 2, range.data() + range.size(), hi);
    const uint64_t pick = std::to_string(lo + 1) != option.default_value ? lo + 1 : lo;
    if (pick > hi) continue;
    *name = option.name;
    *value = std::to_string(pick);
    return true;
  }
  return false;
}

// Whether an options string ("a=1;b=2 (...)") sets `option=value` exactly.
bool HasOption(const std::string& description, const std::string& set) {
  return description.find(set + ";") != std::string::npos ||
         description.find(set + " ") != std::string::npos;
}

// "--memtablerep=skip_list,id=<rep>;<option>=<value>" runs the rep under its
// bench name, and its factory holds that option; without it, the default.
TEST(BenchRepCatalogue, OptionsStringBuildsThatRepWithThoseOptions) {
  size_t tried = 0;
  for (const RepInfo& info : ListReps()) {
    std::string option, value;
    if (!PickOption(info, &option, &value)) continue;
    ++tried;
    const KnownRep* rep = nullptr;
    for (const KnownRep& k : KnownReps()) {
      if (k.canonical_name == info.name) rep = FindKnown(k.name);
    }
    ASSERT_NE(rep, nullptr) << info.name;
    const std::string spec = "id=" + info.name + "; " + option + "=" + value;
    const std::string arg = "--memtablerep=skip_list," + spec;
    std::vector<const char*> argv = {"memrep_bench", arg.c_str()};
    Flags flags;
    bool help = false;
    Status s = ParseFlags(static_cast<int>(argv.size()), argv.data(), &flags, &help);
    ASSERT_TRUE(s.ok()) << arg << ": " << s.ToString();
    EXPECT_EQ(flags.reps, (std::vector<std::string>{"skip_list", rep->name}));
    EXPECT_EQ(flags.rep_options[rep->name], spec);

    const std::string set = option + "=" + value;
    std::unique_ptr<RepFactory> factory;
    s = RepFactory::Make(rep->name, RepConfigOf(flags), 1 << 20, &factory);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(factory->name(), rep->name);
    EXPECT_TRUE(factory->memrep());
    EXPECT_TRUE(HasOption(factory->description(), set)) << factory->description();
    // The rep it builds is memrep's, and works.
    std::unique_ptr<BenchRep> bench_rep;
    s = factory->NewRep(&bench_rep);
    ASSERT_TRUE(s.ok()) << s.ToString();
    CheckInsertGetIterate(*bench_rep, KeyCodec(16), ValuePool(32, 9), spec);

    // The options string itself as the word: the same.
    ASSERT_TRUE(RepFactory::Make(spec, RepConfig(), 1 << 20, &factory).ok());
    EXPECT_EQ(factory->name(), rep->name);
    EXPECT_TRUE(HasOption(factory->description(), set)) << factory->description();
    // Without it: the rep's default.
    ASSERT_TRUE(RepFactory::Make(rep->name, RepConfig(), 1 << 20, &factory).ok());
    EXPECT_FALSE(HasOption(factory->description(), set)) << factory->description();
  }
  EXPECT_GT(tried, 0u) << "no memrep rep has an option to set";
}

TEST(BenchRepCatalogue, BadOptionsStringsAreRefused) {
  for (const RepInfo& info : ListReps()) {
    std::vector<std::string> bad = {"id=" + info.name + ";no_such_option=1"};
    if (!info.positional_option.empty()) bad.push_back(info.name + ":lots");
    for (const std::string& word : bad) {
      RepChoice choice;
      Status s = ResolveRep(word, &choice);
      EXPECT_TRUE(s.IsInvalidArgument()) << word;
      std::unique_ptr<RepFactory> f;
      EXPECT_TRUE(RepFactory::Make(word, RepConfig(), 1 << 20, &f).IsInvalidArgument()) << word;
      const std::string arg = "--memtablerep=" + word;
      std::vector<const char*> argv = {"memrep_bench", arg.c_str()};
      Flags flags;
      bool help = false;
      s = ParseFlags(static_cast<int>(argv.size()), argv.data(), &flags, &help);
      EXPECT_TRUE(s.IsInvalidArgument()) << word;
      EXPECT_NE(s.message().find(word), std::string::npos) << s.message();
    }
  }
  // RocksDB's reps take no options string, and the message says so.
  RepChoice choice;
  Status s = ResolveRep("id=skip_list;x=1", &choice);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("RocksDB's rep"), std::string::npos) << s.message();
}

// memrep's reps are validated, as RocksDB validates a column family when a
// database opens, for --write_buffer_size, or for what the run will hold (at
// least 64 KiB, at most what the rep can take). Nothing is refused: a rep
// sizes itself as it fills (src/runs/run_options.h), whatever the size.
TEST(BenchRepCatalogue, MemrepRepsAreValidatedForTheWriteBuffer) {
  for (const KnownRep& rep : KnownReps()) {
    if (!rep.memrep) continue;
    std::unique_ptr<RepFactory> f;
    RepConfig config;
    ASSERT_TRUE(RepFactory::Make(rep.name, config, 1000, &f).ok());
    EXPECT_NE(f->description().find("write_buffer_size=65536)"), std::string::npos)
        << f->description();
    ASSERT_TRUE(RepFactory::Make(rep.name, config, 3 << 20, &f).ok());
    EXPECT_NE(f->description().find("write_buffer_size=3145728)"), std::string::npos)
        << f->description();
    config.write_buffer_size = 1 << 20;
    ASSERT_TRUE(RepFactory::Make(rep.name, config, 3 << 20, &f).ok());
    EXPECT_NE(f->description().find("write_buffer_size=1048576)"), std::string::npos)
        << f->description();
    const uint64_t limit = rep.traits.max_memtable_bytes;
    if (limit == 0) continue;
    // The trie's limit also depends on its region (3/4 of mem_cap): the
    // traits' limit is what its largest region holds.
    const std::string spec =
        rep.canonical_name == "memrep.Trie" ? "id=memrep.Trie;mem_cap=8G" : std::string(rep.name);
    config.write_buffer_size = 0;
    ASSERT_TRUE(RepFactory::Make(spec, config, 2 * limit, &f).ok()) << spec;
    EXPECT_NE(f->description().find("write_buffer_size=" + std::to_string(limit) + ")"),
              std::string::npos)
        << f->description();
    config.write_buffer_size = limit + 1;
    EXPECT_TRUE(RepFactory::Make(spec, config, 1 << 20, &f).ok()) << rep.name;
  }
}

}  // namespace
}  // namespace memrep::bench
