// option_fuzz: the options strings users hand memrep, through every door that
// reads them. For each input string:
//  1. RepSpec::Parse: an error has a message and leaves the spec as it was; a
//     success validates, and ToString prints what parses back to the same
//     spec; each option's printed value sets back to itself.
//  2. The input, and each value in it, as the value of every option of every
//     rep: what Set accepts, and what Get prints then, agree with an
//     independent reading of the documented number and size grammar
//     (ExpectedNumber below).
//  3. MemTable::Open(input): succeeds exactly when Parse does (or runs out of
//     memory), with Parse's error otherwise; an opened table stores a record
//     and serves it back, and Freeze ends writing.
//  4. With RocksDB: memrep's NewRepFactory agrees with Parse; RocksDB's
//     MemTableRepFactory::CreateFromString builds memrep's factory, with the
//     same options, for every string Parse accepts; and the string a memrep
//     factory writes of itself (what an OPTIONS file stores) builds an
//     equivalent factory.
// A failed check prints the input and what was wrong, then aborts: libFuzzer
// reports a crash and saves the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "escaped.h"
#include "memrep/memtable.h"
#include "memrep/registry.h"

#ifdef MEMREP_FUZZ_ROCKSDB
#include <rocksdb/convenience.h>
#include <rocksdb/memtablerep.h>

#include <exception>

#include "memrep/rocksdb.h"
#include "rep_factory.h"
#endif

namespace memrep {
namespace {

using fuzz::Escaped;

std::string_view g_input;  // the input under test, for Fail's report

// Every registered rep (all register before main).
const std::vector<RepInfo>& Reps() {
  static const std::vector<RepInfo> reps = ListReps();
  return reps;
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "option_fuzz: input \"%s\": %s\n", Escaped(g_input).c_str(), what.c_str());
  std::abort();
}

void Check(bool ok, const std::string& what) {
  if (!ok) Fail(what);
}

// Every error memrep returns says what was wrong.
void CheckError(const Status& s, const std::string& where) {
  Check(!s.ok(), where + " should have failed");
  Check(!s.message().empty(), where + " failed with an empty message: " + s.ToString());
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// An option's range as OptionInfo::range writes it for numbers:
// "2..64", or "1..1073741824 or auto".
struct NumberRange {
  uint64_t min = 0;
  uint64_t max = 0;
  bool allows_auto = false;
};

std::optional<NumberRange> RangeOf(const OptionInfo& option) {
  if (option.type != "count" && option.type != "bytes") return std::nullopt;
  NumberRange range;
  const std::string& text = option.range;
  const size_t dots = text.find("..");
  if (dots == std::string::npos) return std::nullopt;
  range.min = std::strtoull(text.c_str(), nullptr, 10);
  range.max = std::strtoull(text.c_str() + dots + 2, nullptr, 10);
  range.allows_auto = text.find("or auto") != std::string::npos;
  return range;
}

// The number a count or bytes option takes from `text`, read independently of
// memrep's parser by the grammar the docs state: decimal digits; for bytes,
// then "B", or K, M, G or T alone or followed by "B" or "iB", in any case;
// "auto" (any case) where allowed, meaning 0. nullopt: not a number, or over
// 2^64-1. The range is not checked here.
std::optional<uint64_t> ExpectedNumber(const OptionInfo& option, const NumberRange& range,
                                       std::string_view text) {
  if (range.allows_auto && EqualsIgnoringCase(text, "auto")) return 0;
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  std::string_view suffix = text.substr(digits);
  int shift = 0;
  if (option.type == "count") {
    if (!suffix.empty()) return std::nullopt;
  } else if (!suffix.empty() && !EqualsIgnoringCase(suffix, "b")) {
    const std::string_view units = "kmgt";
    const char unit = suffix[0] >= 'A' && suffix[0] <= 'Z' ? suffix[0] - 'A' + 'a' : suffix[0];
    const size_t index = units.find(unit);
    if (index == std::string_view::npos) return std::nullopt;
    suffix.remove_prefix(1);
    if (!suffix.empty() && !EqualsIgnoringCase(suffix, "b") && !EqualsIgnoringCase(suffix, "ib")) {
      return std::nullopt;
    }
    shift = 10 * static_cast<int>(index + 1);
  }
  unsigned __int128 value = 0;
  for (size_t i = 0; i < digits; ++i) {
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
    if (value > UINT64_MAX) return std::nullopt;
  }
  value <<= shift;
  if (value > UINT64_MAX) return std::nullopt;
  return static_cast<uint64_t>(value);
}

// Part 1: Parse, ToString, and each option's printed value.
Status CheckParse(std::string_view text, RepSpec* spec) {
  // Another rep than the default's, to see that a failed Parse leaves it alone.
  RepSpec other;
  if (RepSpec::Parse(Reps().back().name, &other).ok()) *spec = other;
  const std::string before = spec->ToString();
  const Status s = RepSpec::Parse(text, spec);
  if (!s.ok()) {
    CheckError(s, "RepSpec::Parse");
    Check(s.IsInvalidArgument() || s.IsOutOfMemory(),
          "RepSpec::Parse failed with an unexpected code: " + s.ToString());
    Check(spec->ToString() == before,
          "a failed RepSpec::Parse changed the spec from " + before + " to " + spec->ToString());
    return s;
  }
  const Status valid = spec->Validate();
  Check(valid.ok(), "Parse accepted a spec that Validate refuses: " + valid.ToString());

  const std::string printed = spec->ToString();
  RepSpec again;
  const Status reparsed = RepSpec::Parse(printed, &again);
  Check(reparsed.ok(), "Parse accepted the input but not its ToString \"" + Escaped(printed) +
                           "\": " + reparsed.ToString());
  Check(again.ToString() == printed, "ToString \"" + Escaped(printed) + "\" parses back as \"" +
                                         Escaped(again.ToString()) + "\"");
  Check(again.name() == spec->name(), "the rep's name changed in the round trip");

  RepInfo info;
  const Status described = DescribeRep(spec->name(), &info);
  Check(described.ok() && info.name == spec->name(),
        "DescribeRep does not know the parsed rep " + spec->name() + ": " + described.ToString());
  Check(info.options.size() == spec->OptionNames().size(),
        "DescribeRep and RepSpec::OptionNames list different options");

  // Each option prints a value that sets back to the same spec.
  for (const std::string& name : spec->OptionNames()) {
    std::string value;
    const Status got = spec->Get(name, &value);
    Check(got.ok(), "Get(" + name + ") failed: " + got.ToString());
    RepSpec copy = *spec;
    const Status set = copy.Set(name, value);
    Check(set.ok(), "Set(" + name + ", \"" + Escaped(value) +
                        "\"), the value Get printed, failed: " + set.ToString());
    Check(copy.ToString() == printed,
          "Set(" + name + ", " + value + ") changed the spec to " + copy.ToString());
  }

  // The rep's other spellings name it too, with its defaults.
  for (const std::string& alias : info.aliases) {
    RepSpec by_alias;
    const Status a = RepSpec::Parse(alias, &by_alias);
    Check(a.ok() && by_alias.name() == spec->name(),
          "alias " + alias + " of " + spec->name() + " does not parse to it: " + a.ToString());
  }
  if (!info.positional_option.empty()) {
    std::string value;
    (void)spec->Get(info.positional_option, &value);
    RepSpec positional;
    const Status p = RepSpec::Parse(spec->name() + ":" + value, &positional);
    std::string value_again;
    if (p.ok()) (void)positional.Get(info.positional_option, &value_again);
    Check(p.ok() && value_again == value, spec->name() + ":" + value + " does not set " +
                                              info.positional_option + ": " + p.ToString());
  }
  return s;
}

// The values to try as every option's: the whole input, and what follows
// each '=' or ':' up to the next ';' (so the seeds' values are tried).
std::vector<std::string_view> CandidateValues(std::string_view text) {
  std::vector<std::string_view> values = {text};
  for (size_t i = 0; i < text.size() && values.size() < 8; ++i) {
    if (text[i] != '=' && text[i] != ':') continue;
    const size_t end = std::min(text.find(';', i + 1), text.size());
    values.push_back(text.substr(i + 1, end - i - 1));
  }
  return values;
}

// Part 2: a value as one option's, for every option of every rep.
void CheckOptionValue(std::string_view text) {
  for (const RepInfo& rep : Reps()) {
    RepSpec defaults;
    if (!RepSpec::Parse(rep.name, &defaults).ok())
      Fail("the registered rep " + rep.name + " does not parse");
    const std::string before = defaults.ToString();
    for (const OptionInfo& option : rep.options) {
      RepSpec spec = defaults;
      const Status set = spec.Set(option.name, text);
      const std::string where = rep.name + " Set(" + option.name + ", \"" + Escaped(text) + "\")";
      if (!set.ok()) {
        CheckError(set, where);
        Check(spec.ToString() == before, "a failed " + where + " changed the spec");
      }
      const std::optional<NumberRange> range = RangeOf(option);
      if (range) {
        const std::optional<uint64_t> number = ExpectedNumber(option, *range, text);
        const bool in_range = number && ((range->allows_auto && *number == 0) ||
                                         (*number >= range->min && *number <= range->max));
        Check(set.ok() == in_range, where + (set.ok() ? " accepted" : " refused") +
                                        " a value the documented grammar and range " +
                                        option.range + (in_range ? " accept" : " refuse") +
                                        (set.ok() ? "" : ": " + set.ToString()));
        if (set.ok()) {
          std::string printed;
          (void)spec.Get(option.name, &printed);
          const std::string expected =
              range->allows_auto && *number == 0 ? "auto" : std::to_string(*number);
          Check(printed == expected, where + " stored " + printed + ", expected " + expected);
        }
      }
      if (!set.ok()) continue;
      // Whatever was accepted prints back as a value that sets the same.
      std::string printed;
      (void)spec.Get(option.name, &printed);
      RepSpec again = defaults;
      const Status reset = again.Set(option.name, printed);
      Check(reset.ok() && again.ToString() == spec.ToString(),
            where + ": the printed value " + printed + " does not set back: " + reset.ToString());
      // An option set alone may still break a rule across options; Validate
      // and Parse of the whole spec must then agree.
      const Status valid = spec.Validate();
      RepSpec parsed;
      const Status reparsed = RepSpec::Parse(spec.ToString(), &parsed);
      Check(valid.ok() == reparsed.ok(), where + ": Validate says " + valid.ToString() +
                                             " but Parse of its ToString says " +
                                             reparsed.ToString());
    }
  }
}

// Part 3: the standalone face opened by the string.
void CheckOpen(std::string_view text, const Status& parsed, const RepSpec& spec) {
  std::unique_ptr<MemTable> table;
  const Status s = MemTable::Open(text, &table);
  if (!parsed.ok()) {
    CheckError(s, "MemTable::Open of a string Parse refuses");
    Check(s.code() == parsed.code() && s.message() == parsed.message(),
          "MemTable::Open and Parse disagree: " + s.ToString() + " vs " + parsed.ToString());
    Check(table == nullptr, "a failed MemTable::Open set its output");
    return;
  }
  if (s.IsOutOfMemory()) {  // a rep sized past the address space: allowed, with a message
    CheckError(s, "MemTable::Open");
    return;
  }
  Check(s.ok() && table != nullptr,
        "MemTable::Open refuses a string Parse accepts: " + s.ToString());
  Check(table->rep_name() == spec.name(),
        "MemTable::Open built " + table->rep_name() + ", Parse named " + spec.name());
  const Status put = table->Put("key", "value", 7);
  Check(put.ok() || put.IsFull() || put.IsOutOfMemory(), "Put failed: " + put.ToString());
  if (!put.ok()) return;
  std::string value;
  const Status got = table->Get("key", 7, &value);
  Check(got.ok() && value == "value", "Get after Put: " + got.ToString() + ", \"" + value + "\"");
  Check(table->Get("key", 6, &value).IsNotFound(), "Get before the Put's sequence found it");
  Check(table->NumEntries() == 1,
        "NumEntries " + std::to_string(table->NumEntries()) + " after one Put");
  // A table file the options ask for (the trie's convert_to_sst) may fail
  // to be written where the fuzzed path leads; nothing else may fail.
  const Status frozen = table->Freeze();
  Check(frozen.ok() || frozen.IsIOError() || frozen.IsFull(), "Freeze: " + frozen.ToString());
  Check(table->Put("key", "value", 8).IsFrozen(), "a Put after Freeze was not refused");
  size_t drained = 0;
  const Status drain = table->Drain([&](const EntryView& e) {
    drained++;
    Check(e.user_key == "key" && e.sequence() == 7 && e.value == "value",
          "Drain gave another record");
  });
  Check(drain.ok() && drained == 1,
        "Drain: " + drain.ToString() + ", records: " + std::to_string(drained));
}

#ifdef MEMREP_FUZZ_ROCKSDB
namespace rdb = ROCKSDB_NAMESPACE;

// The memrep factory f is, or nullptr for another (RocksDB's own) or none.
const rocksdb_plugin::RepFactory* MemrepFactory(const rdb::MemTableRepFactory* f) {
  if (f == nullptr) return nullptr;
  for (const RepInfo& rep : Reps()) {
    if (rep.name == f->Name()) return static_cast<const rocksdb_plugin::RepFactory*>(f);
  }
  return nullptr;
}

// Whether the text could reach memrep's factory: it names one of memrep's
// reps. RocksDB's own factories (skip_list, vector, ...) parse their strings
// themselves; what they do is not memrep's to check.
bool MentionsMemrep(std::string_view text) {
  for (const RepInfo& rep : Reps()) {
    if (text.find(rep.name) != std::string_view::npos) return true;
    for (const std::string& alias : rep.aliases) {
      if (text.find(alias) != std::string_view::npos) return true;
    }
  }
  return false;
}

// RocksDB's CreateFromString; an exception out of it is a failure when the
// text names a memrep rep.
rdb::Status Create(const rdb::ConfigOptions& config, const std::string& text,
                   std::shared_ptr<rdb::MemTableRepFactory>* out, bool* threw) {
  *threw = false;
  try {
    return rdb::MemTableRepFactory::CreateFromString(config, text, out);
  } catch (const std::exception& e) {
    if (MentionsMemrep(text)) Fail(std::string("CreateFromString threw: ") + e.what());
    *threw = true;
    return rdb::Status::Aborted("threw");
  }
}

// Part 4: the RocksDB face.
void CheckRocksDB(std::string_view text, const Status& parsed, const RepSpec& spec) {
  const std::string input(text);
  {
    std::shared_ptr<rdb::MemTableRepFactory> f;
    const rdb::Status s = rocksdb_plugin::NewRepFactory(text, &f);
    Check(s.ok() == parsed.ok(),
          "NewRepFactory says " + s.ToString() + ", Parse " + parsed.ToString());
    if (s.ok()) {
      const auto* memrep = MemrepFactory(f.get());
      Check(memrep != nullptr && memrep->spec().ToString() == spec.ToString(),
            "NewRepFactory built another factory than Parse's spec " + spec.ToString());
    } else {
      // RocksDB keeps a message as a C string: up to a NUL of the input.
      const std::string& message = parsed.message();
      Check(s.getState() != nullptr && s.getState() == message.substr(0, message.find('\0')),
            "NewRepFactory's error " + s.ToString() + " is not Parse's " + parsed.ToString());
    }
  }

  rdb::ConfigOptions strict;
  strict.ignore_unknown_options = false;
  strict.ignore_unsupported_options = false;
  std::shared_ptr<rdb::MemTableRepFactory> f;
  bool threw;
  const rdb::Status s = Create(strict, input, &f, &threw);
  if (threw) return;
  const auto* memrep = s.ok() ? MemrepFactory(f.get()) : nullptr;
  // RocksDB reads an options string its own way: it trims less than memrep
  // and refuses empty items, but takes the braces of its OPTIONS files and
  // keeps only the last of a repeated option. So the two must agree where
  // both accept a string, and on the spellings both document.
  if (memrep != nullptr && parsed.ok()) {
    Check(memrep->spec().ToString() == spec.ToString(),
          "CreateFromString built " + memrep->spec().ToString() + ", but Parse " + spec.ToString());
  }
  if (parsed.ok()) {
    // "<name>" and "<name>:<value>", written plainly.
    const bool bare_name = text.find_first_of(" \t\r\n\v\f=;{}") == std::string_view::npos;
    const std::string canonical = spec.ToString();
    for (const std::string& spelling : {canonical, bare_name ? input : canonical}) {
      std::shared_ptr<rdb::MemTableRepFactory> g;
      const rdb::Status c = Create(strict, spelling, &g, &threw);
      const auto* built = c.ok() ? MemrepFactory(g.get()) : nullptr;
      Check(built != nullptr && built->spec().ToString() == canonical,
            "CreateFromString(\"" + Escaped(spelling) + "\") does not build " + canonical + ": " +
                c.ToString() + (built ? ", built " + built->spec().ToString() : ""));
    }
  }
  if (!s.ok() && MentionsMemrep(text)) {
    Check(s.getState() != nullptr && *s.getState() != '\0',
          "CreateFromString failed with an empty message: " + s.ToString());
  }
  if (memrep != nullptr) {
    const Status valid = memrep->spec().Validate();
    Check(valid.ok(),
          "CreateFromString built a factory whose options are invalid: " + valid.ToString());
    // What an OPTIONS file stores of the factory builds an equivalent one.
    const std::string written = f->ToString(strict);
    std::shared_ptr<rdb::MemTableRepFactory> g;
    const rdb::Status again = Create(strict, written, &g, &threw);
    const auto* memrep_again = again.ok() ? MemrepFactory(g.get()) : nullptr;
    Check(memrep_again != nullptr, "the factory's own string \"" + Escaped(written) +
                                       "\" does not build it: " + again.ToString());
    std::string mismatch;
    Check(memrep_again->spec().ToString() == memrep->spec().ToString() &&
              f->AreEquivalent(strict, g.get(), &mismatch),
          "the factory's own string \"" + Escaped(written) + "\" builds another: " +
              memrep_again->spec().ToString() + " (mismatch: " + mismatch + ")");
  }

  // An OPTIONS file of a newer memrep may name options this one lacks:
  // ignored when asked, but what is built is still valid.
  rdb::ConfigOptions lenient;
  lenient.ignore_unknown_options = true;
  std::shared_ptr<rdb::MemTableRepFactory> h;
  const rdb::Status l = Create(lenient, input, &h, &threw);
  if (const auto* lenient_memrep = l.ok() ? MemrepFactory(h.get()) : nullptr) {
    const Status valid = lenient_memrep->spec().Validate();
    Check(valid.ok(),
          "CreateFromString (ignoring unknown options) built invalid options: " + valid.ToString());
  }
}
#endif

}  // namespace
}  // namespace memrep

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Options strings are short; longer inputs only slow the search down.
  if (size > 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  memrep::g_input = text;
  memrep::RepSpec spec;
  const memrep::Status parsed = memrep::CheckParse(text, &spec);
  for (std::string_view value : memrep::CandidateValues(text)) memrep::CheckOptionValue(value);
  memrep::CheckOpen(text, parsed, spec);
#ifdef MEMREP_FUZZ_ROCKSDB
  memrep::CheckRocksDB(text, parsed, spec);
#endif
  return 0;
}
