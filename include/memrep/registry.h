// The registry of reps: every memtable representation memrep offers, with
// its names, traits and options. Both faces build reps from it by name or
// options string, the conformance suite and the benchmarks list reps from it,
// and docs/ print its option tables.
//
// A rep is named by an *options string*, in any of these forms:
//   memrep.SortedHash                        the name, or an alias (sorted_hash)
//   memrep.SortedHash:1048576                the name and the rep's positional option
//   id=memrep.SortedHash; max_runs=4; ...    the name and options (RocksDB's form)
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/export.h"
#include "memrep/rep.h"
#include "memrep/status.h"

namespace memrep {

// One option of a rep, as the docs show it.
struct OptionInfo {
  std::string name;
  std::string type;           // "count", "bytes", "bool", "string" or "choice"
  std::string default_value;  // as an options string writes it
  std::string range;          // "2..64", "1..1073741824 or auto", "a | b"
  std::string doc;
};

// One registered rep.
struct RepInfo {
  std::string name;                  // canonical, e.g. "memrep.SortedHash"
  std::vector<std::string> aliases;  // other accepted names
  std::string summary;               // one line
  RepTraits traits;
  std::vector<OptionInfo> options;
  std::string positional_option;  // the option "<name>:<value>" sets; "" if none
  // Not a structure of its own: each memtable gets another rep, chosen per
  // memtable (memrep.Auto), whose decisions a lineage keeps
  // (memrep/auto.h, AutoCountersOf; the RocksDB face: GetAutoCounters).
  bool chooses_per_memtable = false;
};

// The traits' values as listings and JSON write them: "constant",
// "logarithmic", "linear"; "any", "byte_equality", "bytewise"; "none",
// "same_thread", "all".
MEMREP_EXPORT const char* CostName(RepTraits::Cost cost);
MEMREP_EXPORT const char* ComparatorsName(RepTraits::Comparators comparators);
MEMREP_EXPORT const char* DuplicatesName(RepTraits::Duplicates duplicates);

// Every registered rep, memrep's own first.
MEMREP_EXPORT std::vector<RepInfo> ListReps();
// The rep with this name or alias: NotFound (listing the known names) if none.
MEMREP_EXPORT Status DescribeRep(std::string_view name, RepInfo* out);

// A rep and its option values: what an options string names. Copyable.
struct RepSpecAccess;

class MEMREP_EXPORT RepSpec {
 public:
  // Parses an options string (the forms above). InvalidArgument for an
  // unknown rep or option, or a value out of range, saying which and what is
  // accepted; *out is unchanged then.
  static Status Parse(std::string_view text, RepSpec* out);

  RepSpec();  // memrep.SortedHash with its defaults
  RepSpec(const RepSpec& other);
  RepSpec& operator=(const RepSpec& other);
  RepSpec(RepSpec&&) noexcept;
  RepSpec& operator=(RepSpec&&) noexcept;
  ~RepSpec();

  const std::string& name() const;
  // The first alias, or "" if the rep has none.
  std::string Nickname() const;
  const RepTraits& traits() const;

  // One option, parsed and checked as Parse does; unchanged on error.
  Status Set(std::string_view option, std::string_view value);
  Status Get(std::string_view option, std::string* value) const;
  // Every option in range, and the rep's rules across options.
  Status Validate() const;
  // The option names, in the table's order.
  std::vector<std::string> OptionNames() const;
  // "id=<name>; <option>=<value>; ..." with every option: Parse reads it back.
  std::string ToString() const;

  // Whether the rep serves `comparator` (nullptr: bytewise): OK, or
  // InvalidArgument saying why not and what to use instead.
  Status CheckComparator(const UserKeyComparator* comparator) const;

  // Whether a memtable of `write_buffer_size` bytes fits this rep with these
  // options (its addressing limit, a region's capacity): OK, or
  // InvalidArgument naming both sizes and what to change.
  Status CheckWriteBufferSize(uint64_t write_buffer_size) const;

  // Whether these options can serve the RocksDB face (rows): OK, or why not
  // (a trie's table conversion, for one).
  Status CheckRowsFace() const;

  // Builds the rep: CheckComparator's error, OutOfMemory, or OK.
  Status NewRep(const RepContext& context, std::unique_ptr<Rep>* out) const;

 private:
  friend struct RepSpecAccess;  // the registry's own code (src/registry/)
  // The registry's record of the rep and the typed option values.
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace memrep
