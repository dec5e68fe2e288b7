#include "auto/registration.h"

#include "auto/candidates.h"
#include "auto/lineage.h"
#include "auto/make_rep.h"
#include "memrep/auto.h"
#include "memrep/registry.h"

namespace memrep {

namespace auto_rep {
namespace {

Status Make(const registry::AnyOptions& options, const RepContext& context,
            std::unique_ptr<Rep>* out) {
  return MakeRep(options.As<AutoOptions>(), context, out);
}

}  // namespace

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
                 "how much a ns of a rep's background work counts against a ns of the writer's "
                 "(100: every core is busy; 0: cores are spare)")
          .Count("history", &O::history, 1, O::kMaxHistory,
                 "recent memtables the policy weighs (newest first, weights 1, 1/2, 1/4, ...)");
  return table;
}

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = [] {
    registry::Registration r;
    r.name = AutoOptions::kName;
    r.aliases = {"auto"};
    r.summary =
        "chooses the rep of each memtable (among candidates) from the workload the last "
        "memtables of its column family saw, with hysteresis; counts what it is asked";
    // What the default candidates share (traits_of gives them for any list).
    r.traits.concurrent_insert = true;
    r.traits.duplicates = RepTraits::Duplicates::kInBatch;
    r.traits.comparators = RepTraits::Comparators::kAny;
    r.traits.point_read_while_mutable = RepTraits::Cost::kLogarithmic;
    r.traits.new_iterator_while_mutable = RepTraits::Cost::kConstant;
    r.options = &OptionTableOf();
    r.conformance_options = {
        // Every candidate in turn, one per memtable.
        "policy=rotate",
        "pin=memrep.SortedHash",
        "pin=memrep.Vector",
        "pin=memrep.Columnar",
    };
    r.check_options = CheckOptions;
    r.traits_of = TraitsOf;
    r.describe_decision = DescribeNewestDecision;
    r.check_write_buffer_size = CheckWriteBufferSize;
    r.check_rows_face = CheckRowsFace;
    r.make = Make;
    return r;
  }();
  return registration;
}

}  // namespace auto_rep

Status AutoOptions::Validate() const {
  Status s = auto_rep::OptionTableOf().Validate(this);
  if (!s.ok()) return s;
  RepSpec spec;
  return RepSpec::Parse(Spec(), &spec);
}

std::string AutoOptions::Spec() const {
  return std::string("id=") + kName + ";" + auto_rep::OptionTableOf().ToString(this);
}

}  // namespace memrep
