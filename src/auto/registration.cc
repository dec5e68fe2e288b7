#include "auto/registration.h"

#include "auto/candidates.h"
#include "auto/lineage.h"
#include "auto/make_rep.h"
#include "memrep/auto.h"
#include "memrep/registry.h"
#include "registry/typed_registration.h"

namespace memrep {

namespace auto_rep {

const registry::OptionTable& OptionTableOf() {
  using O = AutoOptions;
  static const registry::OptionTable table =
      registry::OptionTable::For<O>(O::kName)
          .String("candidates", &O::candidates,
                  "the reps to choose among: a comma list of rep names or aliases, each with its "
                  "defaults")
          .String("pin", &O::pin, "a candidate to use for every memtable (empty: choose)")
          .String("start", &O::start,
                  "the rep of a lineage's first memtable (empty: the first candidate)")
          .Choice("policy", &O::policy, {"cost", "rotate"},
                  "cost: the cheapest candidate for the recent workload (docs/auto.md); rotate: "
                  "each memtable takes the next candidate (for tests)")
          .Count("margin_percent", &O::margin_percent, 0, O::kMaxMargin,
                 "hysteresis: switch only to a rep estimated this many percent cheaper")
          .Count("background_weight_percent", &O::background_weight_percent, 0,
                 O::kMaxBackgroundWeight,
                 "how much a ns of a rep's background work, and of reads of it once frozen, "
                 "counts against a ns of the writer's (100: every core is busy; 0: cores are "
                 "spare)")
          .Count("history", &O::history, 1, O::kMaxHistory,
                 "recent memtables the policy weighs (newest first, weights 1, 1/2, 1/4, ...)")
          .Bool("learn", &O::learn,
                "time a sample of each memtable's calls and price the candidates from what was "
                "measured, the cost table being the prior (false: the prior alone)")
          .Count("explore_percent", &O::explore_percent, 0, O::kMaxExplorePercent,
                 "at most this share of the last 16 memtables may try a candidate no measurement "
                 "covers for the workload")
          .String("prior", &O::prior,
                  "the cost table's rows to replace: rep:insert/concurrent_insert/batch_entry/get/"
                  "seek/step/background (ns),... as memrep_bench --calibrate_auto prints it")
          .String("learned_file", &O::learned_file,
                  "a file to keep what was learned in across a reopen (empty: in memory only)");
  return table;
}

namespace {

using Typed = registry::TypedRegistration<AutoOptions, OptionTableOf, MakeRep>;

}  // namespace

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = Typed::Describe({
      .aliases = {"auto"},
      .summary = "chooses the rep of each memtable (among candidates) from the workload the "
                 "last memtables of its column family saw, with hysteresis; counts what it is "
                 "asked",
      // What the default candidates share (traits_of gives them for any list).
      .traits = {.concurrent_insert = true,
                 .duplicates = RepTraits::Duplicates::kSameThread,
                 .comparators = RepTraits::Comparators::kAny,
                 .point_read_while_mutable = RepTraits::Cost::kLogarithmic,
                 .new_iterator_while_mutable = RepTraits::Cost::kConstant},
      .conformance_options =
          {
              // Every candidate in turn, one per memtable.
              "policy=rotate",
              "pin=memrep.SortedHash",
              "pin=memrep.Vector",
              "pin=memrep.Columnar",
          },
      .check_write_buffer_size = CheckWriteBufferSize,
      .check_rows_face = CheckRowsFace,
      .check_options = CheckOptions,
      .traits_of = TraitsOf,
      .describe_decision = DescribeNewestDecision,
  });
  return registration;
}

}  // namespace auto_rep

Status AutoOptions::Validate() const {
  Status s = auto_rep::Typed::Validate(*this);
  if (!s.ok()) return s;
  // The candidates name other reps: the registration's check_options, which
  // RepSpec runs.
  RepSpec spec;
  return RepSpec::Parse(Spec(), &spec);
}

std::string AutoOptions::Spec() const { return auto_rep::Typed::Spec(*this); }

}  // namespace memrep
