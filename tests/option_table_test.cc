#include "registry/option_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace memrep::registry {
namespace {

// One option of each kind, and a rule across two of them.
struct TestOptions {
  uint32_t runs = 8;         // count, 2..64
  uint32_t cut = 4096;       // count, declared up to 2^64-1 and capped at what a uint32_t holds
  uint64_t buckets = 0;      // count with auto
  uint64_t buffer_size = 0;  // bytes with auto
  bool verify = true;
  std::string label = "memtable";
  std::string mode = "fast";

  bool operator==(const TestOptions&) const = default;
};

const OptionTable& Table() {
  static const OptionTable table =
      OptionTable::For<TestOptions>("test")
          .Count("runs", &TestOptions::runs, 2, 64, "Sorted runs kept at most")
          .Count("cut", &TestOptions::cut, 1, std::numeric_limits<uint64_t>::max(),
                 "Entries per cut")
          .Count("buckets", &TestOptions::buckets, 1, uint64_t{1} << 30, "Hash buckets", true)
          .Bytes("buffer_size", &TestOptions::buffer_size, 4096, uint64_t{16} << 30,
                 "Memtable size | in bytes", true)
          .Bool("verify", &TestOptions::verify, "Check checksums")
          .String("label", &TestOptions::label, "Name in logs")
          .Choice("mode", &TestOptions::mode, {"fast", "safe", "paranoid"}, "How careful")
          .Check([](const TestOptions& o) {
            return o.mode == "paranoid" && !o.verify
                       ? Status::InvalidArgument("test option mode=paranoid needs verify=true")
                       : Status::OK();
          });
  return table;
}

// An InvalidArgument whose message holds `phrase`.
::testing::AssertionResult Refused(const Status& s, std::string_view phrase) {
  if (s.IsInvalidArgument() && s.message().find(phrase) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << s.ToString() << " does not say \"" << phrase << "\"";
}

std::string Get(const TestOptions& o, std::string_view name) {
  std::string value;
  EXPECT_TRUE(Table().Get(&o, name, &value).ok()) << name;
  return value;
}

TEST(OptionTable, DefaultsAreWhatTheStructHolds) {
  const TestOptions o;
  EXPECT_TRUE(Table().status().ok());
  EXPECT_EQ(Table().type(), TypeNameOf<TestOptions>());
  EXPECT_NE(Table().type(), TypeNameOf<int>());
  EXPECT_EQ(Table().ToString(&o),
            "runs=8;cut=4096;buckets=auto;buffer_size=auto;verify=true;label=memtable;mode=fast");
  EXPECT_TRUE(Table().Validate(&o).ok());
  ASSERT_EQ(Table().fields().size(), 7u);
  EXPECT_EQ(Table().Find("buffer_size")->type, OptionType::kBytes);
  EXPECT_EQ(Table().Find("cut")->max, uint64_t{std::numeric_limits<uint32_t>::max()});
  EXPECT_EQ(Table().Find("nothing"), nullptr);
}

TEST(OptionTable, SetAndGetEachType) {
  TestOptions o;
  EXPECT_TRUE(Table().Set(&o, "runs", "16").ok());
  EXPECT_TRUE(Table().Set(&o, "buckets", "1000").ok());
  EXPECT_TRUE(Table().Set(&o, "buffer_size", "8192").ok());
  EXPECT_TRUE(Table().Set(&o, "verify", "false").ok());
  EXPECT_TRUE(Table().Set(&o, "label", "hot keys").ok());
  EXPECT_TRUE(Table().Set(&o, "mode", "safe").ok());
  EXPECT_EQ(o.runs, 16u);
  EXPECT_EQ(o.buckets, 1000u);
  EXPECT_EQ(o.buffer_size, 8192u);
  EXPECT_FALSE(o.verify);
  EXPECT_EQ(o.label, "hot keys");
  EXPECT_EQ(o.mode, "safe");
  EXPECT_EQ(Get(o, "runs"), "16");
  EXPECT_EQ(Get(o, "buckets"), "1000");
  EXPECT_EQ(Get(o, "buffer_size"), "8192");
  EXPECT_EQ(Get(o, "verify"), "false");
  EXPECT_EQ(Get(o, "label"), "hot keys");
  EXPECT_EQ(Get(o, "mode"), "safe");
}

TEST(OptionTable, CountRefusesTextThatIsNotADecimalNumber) {
  TestOptions o;
  for (const char* bad : {"lots", "-1", "+1", "1.5", "", " 1", "1 ", "0x10", "8K", "auto"}) {
    EXPECT_TRUE(Refused(Table().Set(&o, "runs", bad), "test option runs='" + std::string(bad) +
                                                          "' is not a non-negative decimal number"))
        << bad;
  }
  EXPECT_EQ(o, TestOptions());
}

TEST(OptionTable, OutOfRangeNamesTheRange) {
  TestOptions o;
  EXPECT_TRUE(
      Refused(Table().Set(&o, "runs", "1"), "test option runs=1 is out of range; use 2..64"));
  EXPECT_TRUE(Refused(Table().Set(&o, "runs", "65"), "runs=65 is out of range; use 2..64"));
  Status s = Table().Set(&o, "buckets", "1073741825");
  EXPECT_TRUE(
      Refused(s, "test option buckets=1073741825 is out of range; use 1..1073741824, or 'auto'"));
  EXPECT_TRUE(Refused(Table().Set(&o, "buffer_size", "4095"),
                      "buffer_size=4095 is out of range; use 4096..17179869184, or 'auto'"));
  EXPECT_TRUE(Table().Set(&o, "runs", "64").ok());
  EXPECT_TRUE(Table().Set(&o, "runs", "2").ok());
  EXPECT_EQ(o.runs, 2u);
}

TEST(OptionTable, Uint32MemberRefusesValuesItCannotHold) {
  TestOptions o;
  EXPECT_TRUE(Refused(Table().Set(&o, "cut", "4294967296"),
                      "test option cut=4294967296 is out of range; use 1..4294967295"));
  EXPECT_TRUE(Refused(Table().Set(&o, "cut", "4294967297"), "out of range"));
  // Larger than a uint64_t holds: out of range too, not a wrap.
  EXPECT_TRUE(Refused(Table().Set(&o, "cut", "18446744073709551616"), "out of range"));
  EXPECT_TRUE(Refused(Table().Set(&o, "runs", "99999999999999999999999"), "out of range"));
  EXPECT_EQ(o, TestOptions());
  EXPECT_TRUE(Table().Set(&o, "cut", "4294967295").ok());
  EXPECT_EQ(o.cut, 4294967295u);
}

TEST(OptionTable, AutoMeansZeroAndPrintsAsAuto) {
  TestOptions o;
  o.buckets = 5;
  o.buffer_size = 8192;
  EXPECT_TRUE(Table().Set(&o, "buckets", "auto").ok());
  EXPECT_TRUE(Table().Set(&o, "buffer_size", "AUTO").ok());
  EXPECT_EQ(o.buckets, 0u);
  EXPECT_EQ(o.buffer_size, 0u);
  EXPECT_EQ(Get(o, "buckets"), "auto");
  EXPECT_EQ(Get(o, "buffer_size"), "auto");
  o.buckets = 5;
  EXPECT_TRUE(Table().Set(&o, "buckets", "0").ok());
  EXPECT_EQ(o.buckets, 0u);
  // Without allows_auto, neither "auto" nor 0 below the minimum is taken.
  EXPECT_TRUE(Refused(Table().Set(&o, "cut", "auto"), "is not a non-negative decimal number"));
  EXPECT_TRUE(Refused(Table().Set(&o, "cut", "0"), "cut=0 is out of range; use 1..4294967295"));
  EXPECT_FALSE(Refused(Table().Set(&o, "cut", "0"), "'auto'"));
}

TEST(OptionTable, BytesTakeSuffixesAndRefuseOverflow) {
  struct Case {
    const char* text;
    uint64_t bytes;
  };
  for (const Case& c : {Case{"4096", 4096}, Case{"4K", 4096}, Case{"4k", 4096}, Case{"4KB", 4096},
                        Case{"4KiB", 4096}, Case{"4kib", 4096}, Case{"64M", uint64_t{64} << 20},
                        Case{"64MiB", uint64_t{64} << 20}, Case{"64mb", uint64_t{64} << 20},
                        Case{"1G", uint64_t{1} << 30}, Case{"16G", uint64_t{16} << 30},
                        Case{"8192B", 8192}, Case{"00004k", 4096}}) {
    TestOptions o;
    EXPECT_TRUE(Table().Set(&o, "buffer_size", c.text).ok()) << c.text;
    EXPECT_EQ(o.buffer_size, c.bytes) << c.text;
    EXPECT_EQ(Get(o, "buffer_size"), std::to_string(c.bytes)) << c.text;
  }
  TestOptions o;
  for (const char* bad :
       {"4X", "K", "4 K", "4KK", "4Kb ", "-4K", "4.5M", "4P", "4iB", "", "4KiBB"}) {
    EXPECT_TRUE(Refused(Table().Set(&o, "buffer_size", bad),
                        "test option buffer_size='" + std::string(bad) +
                            "' is not a size in bytes (a decimal number, optionally followed by "
                            "K, M, G or T)"))
        << bad;
  }
  EXPECT_TRUE(Refused(Table().Set(&o, "buffer_size", "17G"),
                      "buffer_size=17G is out of range; use 4096..17179869184, or 'auto'"));
  EXPECT_TRUE(Refused(Table().Set(&o, "buffer_size", "1T"), "out of range"));
  // 2^24 T is 2^64 bytes: one more than a uint64_t holds, so refused rather than wrapped to 0.
  EXPECT_TRUE(Refused(Table().Set(&o, "buffer_size", "16777216T"), "out of range"));
  EXPECT_TRUE(Refused(Table().Set(&o, "buffer_size", "18446744073709551616"), "out of range"));
  EXPECT_EQ(o, TestOptions());
}

TEST(OptionTable, BoolTakesTrueFalseOneAndZero) {
  TestOptions o;
  for (const char* no : {"false", "FALSE", "False", "0"}) {
    o.verify = true;
    EXPECT_TRUE(Table().Set(&o, "verify", no).ok()) << no;
    EXPECT_FALSE(o.verify) << no;
  }
  for (const char* yes : {"true", "TRUE", "1"}) {
    o.verify = false;
    EXPECT_TRUE(Table().Set(&o, "verify", yes).ok()) << yes;
    EXPECT_TRUE(o.verify) << yes;
  }
  EXPECT_TRUE(
      Refused(Table().Set(&o, "verify", "yes"), "test option verify='yes' is not a boolean"));
  EXPECT_TRUE(Refused(Table().Set(&o, "verify", "2"), "is not a boolean"));
  EXPECT_TRUE(o.verify);
}

TEST(OptionTable, StringRefusesWhatCannotRoundTrip) {
  TestOptions o;
  for (const char* bad : {"a;b", "a=b", "{a", "a}", " a", "a ", "\ta"}) {
    EXPECT_TRUE(Refused(Table().Set(&o, "label", bad),
                        "cannot be stored: ';', '=', '{', '}' and white space at either end"))
        << bad;
  }
  EXPECT_EQ(o.label, "memtable");
  EXPECT_TRUE(Table().Set(&o, "label", "").ok());
  EXPECT_EQ(o.label, "");
  EXPECT_TRUE(Table().Set(&o, "label", "a b:c/d,e").ok());
  EXPECT_EQ(o.label, "a b:c/d,e");
}

TEST(OptionTable, ChoiceListsTheNames) {
  TestOptions o;
  EXPECT_TRUE(Refused(Table().Set(&o, "mode", "Safe"),
                      "test option mode='Safe' is not one of: fast, safe, paranoid"));
  EXPECT_TRUE(Refused(Table().Set(&o, "mode", ""), "is not one of: fast, safe, paranoid"));
  EXPECT_EQ(o.mode, "fast");
  EXPECT_TRUE(Table().Set(&o, "mode", "paranoid").ok());
  EXPECT_EQ(o.mode, "paranoid");
}

TEST(OptionTable, UnknownNameListsTheKnownOptions) {
  TestOptions o;
  const char* known = "; known: runs, cut, buckets, buffer_size, verify, label, mode";
  EXPECT_TRUE(
      Refused(Table().Set(&o, "run", "4"), "unknown test option 'run'" + std::string(known)));
  std::string value = "untouched";
  EXPECT_TRUE(Refused(Table().Get(&o, "Runs", &value), "unknown test option 'Runs'; known: runs"));
  EXPECT_EQ(value, "untouched");
  EXPECT_TRUE(Refused(Table().Parse(&o, "runs=4;speed=9"), "unknown test option 'speed'"));
  EXPECT_EQ(o, TestOptions());
}

TEST(OptionTable, ParseIsAllOrNothing) {
  TestOptions o;
  o.label = "before";
  const TestOptions before = o;
  // The bad item comes after good ones: none of them may stick.
  EXPECT_TRUE(Refused(Table().Parse(&o, "runs=16;label=after;buckets=many"),
                      "buckets='many' is not a non-negative decimal number"));
  EXPECT_TRUE(Refused(Table().Parse(&o, "runs=16;buffer_size=1T"), "out of range"));
  EXPECT_TRUE(Refused(Table().Parse(&o, "runs=16;verify"),
                      "test option string item 'verify' is not name=value"));
  EXPECT_TRUE(Refused(Table().Parse(&o, "runs=16;label=a{b}"), "cannot be stored"));
  // Each item is fine alone; together they break the cross-field rule.
  EXPECT_TRUE(Refused(Table().Parse(&o, "runs=16;verify=false;mode=paranoid"),
                      "mode=paranoid needs verify=true"));
  EXPECT_EQ(o, before);
  EXPECT_TRUE(Table().Parse(&o, "runs=16;label=after;verify=false").ok());
  EXPECT_EQ(o.runs, 16u);
  EXPECT_EQ(o.label, "after");
  EXPECT_FALSE(o.verify);
}

TEST(OptionTable, ParseTrimsAndSkipsEmptyItems) {
  TestOptions o;
  EXPECT_TRUE(Table().Parse(&o, " runs = 16 ;; \t label = hot keys ; ;buffer_size=64M;").ok());
  EXPECT_EQ(o.runs, 16u);
  EXPECT_EQ(o.label, "hot keys");
  EXPECT_EQ(o.buffer_size, uint64_t{64} << 20);
  const TestOptions parsed = o;
  EXPECT_TRUE(Table().Parse(&o, "").ok());
  EXPECT_TRUE(Table().Parse(&o, " ; ;").ok());
  EXPECT_EQ(o, parsed);
  // A later item of the same name wins.
  EXPECT_TRUE(Table().Parse(&o, "runs=4;runs=5").ok());
  EXPECT_EQ(o.runs, 5u);
}

TEST(OptionTable, ToStringParsesBackExactly) {
  TestOptions a;
  TestOptions b;
  b.runs = 64;
  b.cut = std::numeric_limits<uint32_t>::max();
  b.buckets = 1;
  b.buffer_size = (uint64_t{16} << 30) - 1;
  b.verify = false;
  b.label = "";
  b.mode = "safe";
  TestOptions c;
  c.runs = 2;
  c.buckets = uint64_t{1} << 30;
  c.buffer_size = 4096;
  c.label = "a b\tc";
  c.mode = "paranoid";
  for (const TestOptions& original : {a, b, c}) {
    const std::string text = Table().ToString(&original);
    TestOptions parsed;
    parsed.runs = 3;
    parsed.label = "other";
    EXPECT_TRUE(Table().Parse(&parsed, text).ok()) << text;
    EXPECT_EQ(parsed, original) << text;
    EXPECT_EQ(Table().ToString(&parsed), text);
  }
  EXPECT_EQ(
      Table().ToString(&b),
      "runs=64;cut=4294967295;buckets=1;buffer_size=17179869183;verify=false;label=;mode=safe");
}

TEST(OptionTable, ValidateChecksFieldsSetByCodeAndTheCrossFieldRule) {
  TestOptions o;
  o.runs = 1;
  EXPECT_TRUE(Refused(Table().Validate(&o), "test option runs=1 is out of range; use 2..64"));
  o = TestOptions();
  o.buckets = (uint64_t{1} << 30) + 1;
  EXPECT_TRUE(Refused(Table().Validate(&o),
                      "buckets=1073741825 is out of range; use 1..1073741824, or 'auto'"));
  o = TestOptions();
  o.buffer_size = 100;
  EXPECT_TRUE(Refused(Table().Validate(&o), "buffer_size=100 is out of range"));
  o = TestOptions();
  o.cut = 0;
  EXPECT_TRUE(Refused(Table().Validate(&o), "cut=0 is out of range"));
  o = TestOptions();
  o.mode = "reckless";
  EXPECT_TRUE(Refused(Table().Validate(&o), "mode='reckless' is not one of: fast, safe, paranoid"));
  o = TestOptions();
  o.label = "x=y";
  EXPECT_TRUE(Refused(Table().Validate(&o), "label='x=y' cannot be stored"));
  o = TestOptions();
  o.mode = "paranoid";
  o.verify = false;
  EXPECT_TRUE(Refused(Table().Validate(&o), "mode=paranoid needs verify=true"));
  o.verify = true;
  EXPECT_TRUE(Table().Validate(&o).ok());
}

TEST(OptionTable, AValueSetAcceptsPassesValidate) {
  struct Item {
    const char* name;
    const char* value;
  };
  for (const Item& item :
       {Item{"runs", "2"}, Item{"runs", "64"}, Item{"cut", "1"}, Item{"cut", "4294967295"},
        Item{"buckets", "0"}, Item{"buckets", "1073741824"}, Item{"buffer_size", "4K"},
        Item{"buffer_size", "16G"}, Item{"buffer_size", "0"}, Item{"verify", "0"},
        Item{"label", ""}, Item{"mode", "safe"}}) {
    TestOptions o;
    ASSERT_TRUE(Table().Set(&o, item.name, item.value).ok()) << item.name << "=" << item.value;
    EXPECT_TRUE(Table().Validate(&o).ok()) << item.name << "=" << item.value;
  }
}

TEST(OptionTable, MarkdownHasARowPerOption) {
  const std::string md = Table().Markdown();
  EXPECT_EQ(md.find("| option | type | default | range | description |\n| --- |"), 0u) << md;
  for (const char* row : {
           "| runs | count | 8 | 2..64 | Sorted runs kept at most |\n",
           "| cut | count | 4096 | 1..4294967295 | Entries per cut |\n",
           "| buckets | count | auto | 1..1073741824 or auto | Hash buckets |\n",
           "| buffer_size | bytes | auto | 4096..17179869184 or auto | Memtable size \\| in bytes "
           "|\n",
           "| verify | bool | true | true \\| false | Check checksums |\n",
           "| label | string | memtable | text without ; = { } | Name in logs |\n",
           "| mode | choice | fast | fast \\| safe \\| paranoid | How careful |\n",
       }) {
    EXPECT_NE(md.find(row), std::string::npos) << row << "\nnot in\n" << md;
  }
  EXPECT_EQ(std::count(md.begin(), md.end(), '\n'), 2 + 7);
}

TEST(AnyOptions, StartsAtTheDefaultsAndReadsAsItsType) {
  AnyOptions any(&Table());
  EXPECT_EQ(any.table(), &Table());
  EXPECT_EQ(any.As<TestOptions>(), TestOptions());
  EXPECT_TRUE(any.Validate().ok());
  EXPECT_EQ(any.ToString(), Table().ToString(&any.As<TestOptions>()));
  EXPECT_TRUE(any.Set("runs", "12").ok());
  EXPECT_EQ(any.As<TestOptions>().runs, 12u);
  std::string value;
  EXPECT_TRUE(any.Get("runs", &value).ok());
  EXPECT_EQ(value, "12");
  // The table's defaults are not what was written.
  EXPECT_EQ(AnyOptions(&Table()).As<TestOptions>().runs, 8u);
}

TEST(AnyOptions, CopyIsDeep) {
  AnyOptions original(&Table());
  ASSERT_TRUE(original.Parse("runs=10;label=original").ok());
  AnyOptions copy = original;
  ASSERT_TRUE(copy.Parse("runs=20;label=copy").ok());
  EXPECT_EQ(original.As<TestOptions>().runs, 10u);
  EXPECT_EQ(original.As<TestOptions>().label, "original");
  EXPECT_EQ(copy.As<TestOptions>().runs, 20u);

  AnyOptions second = copy;
  TestOptions* written = second.Mutable<TestOptions>();
  ASSERT_NE(written, nullptr);
  written->mode = "safe";
  EXPECT_EQ(second.As<TestOptions>().mode, "safe");
  EXPECT_EQ(copy.As<TestOptions>().mode, "fast");

  // Writing the original after copying leaves the copy alone too.
  AnyOptions third = original;
  ASSERT_TRUE(original.Set("verify", "false").ok());
  EXPECT_TRUE(third.As<TestOptions>().verify);
  EXPECT_FALSE(original.As<TestOptions>().verify);

  // A failed Parse leaves a shared struct as it was, in both copies.
  AnyOptions fourth = original;
  EXPECT_FALSE(fourth.Parse("runs=30;mode=wild").ok());
  EXPECT_EQ(fourth.As<TestOptions>(), original.As<TestOptions>());
  EXPECT_EQ(fourth.As<TestOptions>().runs, 10u);
}

TEST(AnyOptions, EmptyRefusesEveryCall) {
  AnyOptions empty;
  EXPECT_EQ(empty.table(), nullptr);
  std::string value;
  EXPECT_TRUE(Refused(empty.Set("runs", "4"), "made without a table"));
  EXPECT_TRUE(Refused(empty.Get("runs", &value), "made without a table"));
  EXPECT_TRUE(Refused(empty.Parse("runs=4"), "made without a table"));
  EXPECT_TRUE(Refused(empty.Validate(), "made without a table"));
  EXPECT_EQ(empty.ToString(), "");
}

}  // namespace
}  // namespace memrep::registry
