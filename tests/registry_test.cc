// The registry: lookup by name and alias, options strings in every form,
// the option tables' messages, and the docs printed from the tables.
#include "memrep/registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "memrep/memtable.h"
#include "memrep/sorted_hash.h"
#include "memrep/vector.h"
#include "registry/registry.h"
#include "runs/run_options.h"
#include "sorted_hash/sorted_hash_rep.h"

namespace memrep {
namespace {

std::string Parsed(std::string_view text) {
  RepSpec spec;
  Status s = RepSpec::Parse(text, &spec);
  return s.ok() ? spec.ToString() : s.ToString();
}

TEST(Registry, ListsMemrepsRepsFirstWithNamesTraitsAndOptions) {
  const std::vector<RepInfo> reps = ListReps();
  ASSERT_FALSE(reps.empty());
  const RepInfo& sorted_hash = reps.front();
  EXPECT_EQ(sorted_hash.name, "memrep.SortedHash");
  EXPECT_EQ(sorted_hash.aliases,
            (std::vector<std::string>{"sorted_hash", "speedb.HashSpdRepFactory"}));
  EXPECT_TRUE(sorted_hash.traits.concurrent_insert);
  EXPECT_EQ(sorted_hash.traits.duplicates, RepTraits::Duplicates::kAll);
  EXPECT_EQ(sorted_hash.traits.comparators, RepTraits::Comparators::kByteEquality);
  EXPECT_EQ(sorted_hash.traits.point_read_while_mutable, RepTraits::Cost::kConstant);
  EXPECT_EQ(sorted_hash.positional_option, "bucket_count");
  std::vector<std::string> names;
  for (const OptionInfo& o : sorted_hash.options) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bucket_count", "write_buffer_size", "seal_threshold",
                                             "background_cut", "max_runs", "seek_merges"}));
  EXPECT_EQ(sorted_hash.options[0].default_value, "auto");
  EXPECT_EQ(sorted_hash.options[0].range, "1..1073741824 or auto");
  EXPECT_EQ(sorted_hash.options[4].default_value, "8");
  EXPECT_EQ(sorted_hash.options[4].range, "2..64");
  EXPECT_EQ(sorted_hash.options[5].default_value, "true");

  RepInfo info;
  ASSERT_TRUE(DescribeRep("speedb.HashSpdRepFactory", &info).ok());
  EXPECT_EQ(info.name, "memrep.SortedHash") << "an alias finds the rep";
  Status s = DescribeRep("btree", &info);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.message().find("memrep.SortedHash"), std::string::npos) << "lists the known names";
}

// Only memrep.Auto chooses another rep per memtable; tools that show its
// decisions ask the registry, not the name.
TEST(Registry, OnlyAutoChoosesARepPerMemtable) {
  int choosers = 0;
  for (const RepInfo& info : ListReps()) {
    EXPECT_EQ(info.chooses_per_memtable, info.name == "memrep.Auto") << info.name;
    choosers += info.chooses_per_memtable ? 1 : 0;
  }
  EXPECT_EQ(choosers, 1);
  RepInfo info;
  ASSERT_TRUE(DescribeRep("auto", &info).ok());
  EXPECT_TRUE(info.chooses_per_memtable);
}

TEST(Registry, ANameOrAliasTakenTwiceIsRefused) {
  static const registry::Registration clash = [] {
    registry::Registration r = *registry::Find("test.Map");
    r.name = "test.Clash";
    r.aliases = {"sorted_hash"};
    return r;
  }();
  Status s = registry::Register(&clash);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("'sorted_hash' is already registered"), std::string::npos);
  EXPECT_EQ(registry::Find("test.Clash"), nullptr);
}

TEST(RepSpec, EveryFormNamesTheRepAndItsOptions) {
  const std::string defaults =
      "id=memrep.SortedHash;bucket_count=auto;write_buffer_size=auto;seal_threshold=8192;"
      "background_cut=4096;max_runs=8;seek_merges=true";
  EXPECT_EQ(Parsed("memrep.SortedHash"), defaults);
  EXPECT_EQ(Parsed("  sorted_hash "), defaults);
  EXPECT_EQ(Parsed("speedb.HashSpdRepFactory"), defaults);
  EXPECT_EQ(Parsed("memrep.SortedHash:4096"),
            "id=memrep.SortedHash;bucket_count=4096;write_buffer_size=auto;seal_threshold=8192;"
            "background_cut=4096;max_runs=8;seek_merges=true");
  EXPECT_EQ(Parsed("id=sorted_hash; max_runs=4;write_buffer_size=64M; "),
            "id=memrep.SortedHash;bucket_count=auto;write_buffer_size=67108864;"
            "seal_threshold=8192;background_cut=4096;max_runs=4;seek_merges=true");
  // RocksDB's own reading of an id: "<name>:<value>" there too.
  EXPECT_EQ(Parsed("id=sorted_hash:4096; max_runs=4\n"),
            "id=memrep.SortedHash;bucket_count=4096;write_buffer_size=auto;seal_threshold=8192;"
            "background_cut=4096;max_runs=4;seek_merges=true");
  // What ToString writes, Parse reads back.
  EXPECT_EQ(Parsed(Parsed("id=memrep.SortedHash;max_runs=5;bucket_count=77")),
            Parsed("id=memrep.SortedHash;max_runs=5;bucket_count=77"));
  RepSpec spec;
  ASSERT_TRUE(RepSpec::Parse("sorted_hash", &spec).ok());
  EXPECT_EQ(spec.name(), "memrep.SortedHash");
  EXPECT_EQ(spec.Nickname(), "sorted_hash");
  ASSERT_TRUE(spec.Set("seal_threshold", "64").ok());
  std::string value;
  ASSERT_TRUE(spec.Get("seal_threshold", &value).ok());
  EXPECT_EQ(value, "64");
}

TEST(RepSpec, BadStringsFailWithAClearMessageAndChangeNothing) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"memrep.NoSuchRep", "unknown memtable rep 'memrep.NoSuchRep'; known: memrep.SortedHash"},
      {"id=memrep.NoSuchRep; max_runs=4", "unknown memtable rep"},
      {"max_runs=4", "names no rep: begin it with id=<rep name>"},
      {"memrep.SortedHash:lots", "bucket_count='lots' is not a non-negative decimal number"},
      {"memrep.SortedHash:99999999999",
       "bucket_count=99999999999 is out of range; use 1..1073741824, or 'auto'"},
      {"id=memrep.SortedHash; max_runs=1", "max_runs=1 is out of range; use 2..64"},
      {"id=memrep.SortedHash; max_runs=-4", "max_runs='-4' is not a non-negative decimal number"},
      {"id=memrep.SortedHash; write_buffer_size=10", "write_buffer_size=10 is out of range"},
      {"id=memrep.SortedHash; write_buffer_size=big", "is not a size in bytes"},
      {"id=memrep.SortedHash; buckets=4",
       "unknown memrep.SortedHash option 'buckets'; known: bucket_count"},
      {"id=memrep.SortedHash; max_runs", "is not name=value"},
      {"id=memrep.SortedHash; seek_merges=maybe",
       "seek_merges='maybe' is not a boolean: use true, false, 1 or 0"},
  };
  for (const Case& c : cases) {
    RepSpec spec;
    ASSERT_TRUE(spec.Set("max_runs", "7").ok());
    Status s = RepSpec::Parse(c.text, &spec);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.text << " gave " << s.ToString();
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.text << " gave " << s.ToString();
    std::string value;
    ASSERT_TRUE(spec.Get("max_runs", &value).ok());
    EXPECT_EQ(value, "7") << c.text << ": a refused string changes nothing";
  }
}

TEST(SortedHashOptions, ValidateAndSpecComeFromTheTable) {
  SortedHashOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.max_runs = 1;
  Status s = o.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("max_runs=1"), std::string::npos);
  o.max_runs = 5;
  o.bucket_count = 4096;
  EXPECT_EQ(Parsed(o.Spec()), o.Spec()) << "Spec names the rep and every option";
  EXPECT_NE(o.Spec().find("bucket_count=4096"), std::string::npos);
  EXPECT_NE(o.Spec().find("max_runs=5"), std::string::npos);
  o.seek_merges = false;
  EXPECT_NE(o.Spec().find("seek_merges=false"), std::string::npos);
  EXPECT_EQ(Parsed(o.Spec()), o.Spec());
}

// The options the reps on runs share reach their run index as set.
TEST(RunIndexOptionsOf, CarriesTheSharedOptionsOfTheSortedHashAndTheVector) {
  SortedHashOptions h;
  VectorOptions v;
  EXPECT_TRUE(runs::RunIndexOptionsOf(h).seek_merges);
  EXPECT_TRUE(runs::RunIndexOptionsOf(v).seek_merges);
  h.seek_merges = v.seek_merges = false;
  h.max_runs = v.max_runs = 3;
  h.seal_threshold = v.seal_threshold = 99;
  h.background_cut = v.background_cut = 77;
  for (const runs::RunIndexOptions& o : {runs::RunIndexOptionsOf(h), runs::RunIndexOptionsOf(v)}) {
    EXPECT_FALSE(o.seek_merges);
    EXPECT_EQ(o.max_runs, 3u);
    EXPECT_EQ(o.seal_threshold, 99u);
    EXPECT_EQ(o.background_cut, 77u);
  }
}

TEST(SortedHashOptions, BucketsAreSizedFromTheWriteBuffer) {
  SortedHashOptions o;
  EXPECT_EQ(sorted_hash::EffectiveBucketCount(o, uint64_t{64} << 20), (uint64_t{64} << 20) / 512);
  EXPECT_EQ(sorted_hash::EffectiveBucketCount(o, uint64_t{256} << 20), (uint64_t{256} << 20) / 512);
  EXPECT_EQ(sorted_hash::EffectiveBucketCount(o, 4096), 16u) << "at least 16";
  o.bucket_count = 1000;
  EXPECT_EQ(sorted_hash::EffectiveBucketCount(o, uint64_t{256} << 20), 1000u)
      << "any count: no rounding to a power of two";
  o.bucket_count = 5000;
  EXPECT_EQ(sorted_hash::EffectiveBucketCount(o, 4096), 5000u);
  o.bucket_count = 16;
  EXPECT_EQ(sorted_hash::EffectiveBucketCount(o, uint64_t{256} << 20), 16u)
      << "a count given is honoured, however small (long chains in tests)";
}

TEST(RepSpec, AComparatorTheRepCannotServeIsRefusedAtOpen) {
  struct CaseFolding final : UserKeyComparator {
    const char* Name() const override { return "test.CaseFolding"; }
    int Compare(std::string_view a, std::string_view b) const override {
      return BytewiseComparator()->Compare(a, b);
    }
  } custom;
  MemTableOptions options;
  options.comparator = &custom;
  std::unique_ptr<MemTable> table;
  options.rep = "test.PlainMap";  // traits: bytewise orders only
  Status s = MemTable::Open(options, &table);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("test.CaseFolding"), std::string::npos) << s.ToString();
  options.comparator = ReverseBytewiseComparator();
  EXPECT_TRUE(MemTable::Open(options, &table).ok()) << "the reverse order it serves";
  options.rep = "memrep.SortedHash";  // any order where equal means byte-equal
  options.comparator = &custom;
  EXPECT_TRUE(MemTable::Open(options, &table).ok());
}

// One table gives parse, print, validate and the docs: the option table of
// each of memrep's reps is in README.md or a page of docs/, between
// markers, exactly as printed.
TEST(Docs, EveryRepsOptionTableIsInTheDocsAsTheTablePrintsIt) {
  for (const registry::Registration* rep : registry::BuiltinReps()) {
    const std::string begin = "<!-- options " + rep->name + " -->\n";
    const std::string end = "<!-- /options -->";
    std::string found;
    std::vector<std::filesystem::path> pages = {std::filesystem::path(MEMREP_SOURCE_DIR) /
                                                "README.md"};
    for (const auto& file :
         std::filesystem::directory_iterator(std::filesystem::path(MEMREP_SOURCE_DIR) / "docs")) {
      if (file.path().extension() == ".md") pages.push_back(file.path());
    }
    for (const auto& page : pages) {
      std::ifstream in(page);
      std::stringstream text;
      text << in.rdbuf();
      const std::string doc = text.str();
      const size_t at = doc.find(begin);
      if (at == std::string::npos) continue;
      const size_t from = at + begin.size();
      found = doc.substr(from, doc.find(end, from) - from);
      break;
    }
    EXPECT_EQ(found, rep->options->Markdown())
        << rep->name << ": paste the table above between \"" << begin << "\" and \"" << end
        << "\" in its docs page";
  }
}

}  // namespace
}  // namespace memrep
