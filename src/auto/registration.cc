#include "auto/registration.h"

#include <algorithm>
#include <new>

#include "auto/auto_rep.h"
#include "auto/lineage.h"
#include "auto/policy.h"
#include "format/key_order.h"
#include "memrep/auto.h"
#include "memrep/registry.h"

namespace memrep {

namespace auto_rep {
namespace {

// The comma list's names, trimmed; empty items are kept (and refused).
std::vector<std::string> SplitNames(std::string_view list) {
  std::vector<std::string> names;
  while (true) {
    const size_t comma = list.find(',');
    names.emplace_back(registry::Trim(list.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return names;
}

// The canonical name `name` stands for, or "" if no rep has it.
std::string Canonical(std::string_view name) {
  const registry::Registration* r = registry::Find(name);
  return r == nullptr ? std::string() : r->name;
}

Status CheckOptions(const registry::AnyOptions& any) {
  const AutoOptions& o = any.As<AutoOptions>();
  std::vector<std::string> canonical;
  for (const std::string& name : SplitNames(o.candidates)) {
    if (name.empty()) {
      return Status::InvalidArgument("memrep.Auto option candidates='" + o.candidates +
                                     "' has an empty name; give a comma list of rep names");
    }
    const std::string c = Canonical(name);
    if (c.empty()) {
      return Status::InvalidArgument("memrep.Auto candidate '" + name +
                                     "' is not a registered rep; known: " + registry::KnownNames());
    }
    if (c == AutoOptions::kName) {
      return Status::InvalidArgument(
          "memrep.Auto cannot be its own candidate; list the reps it chooses among");
    }
    if (std::find(canonical.begin(), canonical.end(), c) != canonical.end()) {
      return Status::InvalidArgument("memrep.Auto candidate '" + name + "' (" + c +
                                     ") is listed twice in candidates");
    }
    canonical.push_back(c);
  }
  for (const auto& [option, value] : {std::pair{"pin", &o.pin}, std::pair{"start", &o.start}}) {
    if (value->empty()) continue;
    const std::string c = Canonical(*value);
    if (std::find(canonical.begin(), canonical.end(), c) == canonical.end() || c.empty()) {
      return Status::InvalidArgument(std::string("memrep.Auto option ") + option + "=" + *value +
                                     " is not one of the candidates (" + o.candidates +
                                     "); name a candidate, or leave it empty");
    }
  }
  return Status::OK();
}

// The traits every candidate offers: what RocksDB may rely on whichever rep
// a memtable gets. Comparators: the widest, since candidates that cannot
// serve a memtable's comparator are left out of its choice.
RepTraits TraitsOf(const registry::AnyOptions& any) {
  const AutoOptions& o = any.As<AutoOptions>();
  RepTraits t;
  t.concurrent_insert = true;
  t.duplicates = RepTraits::Duplicates::kAll;
  t.comparators = RepTraits::Comparators::kBytewise;
  t.point_read_while_mutable = RepTraits::Cost::kConstant;
  t.new_iterator_while_mutable = RepTraits::Cost::kConstant;
  bool any_candidate = false;
  for (const std::string& name : SplitNames(o.candidates)) {
    const registry::Registration* r = registry::Find(name);
    if (r == nullptr || r->traits_of != nullptr) continue;
    const RepTraits& c = r->traits;
    any_candidate = true;
    t.concurrent_insert = t.concurrent_insert && c.concurrent_insert;
    t.duplicates = std::min(t.duplicates, c.duplicates);
    t.comparators = std::min(t.comparators, c.comparators);
    t.point_read_while_mutable = std::max(t.point_read_while_mutable, c.point_read_while_mutable);
    t.new_iterator_while_mutable =
        std::max(t.new_iterator_while_mutable, c.new_iterator_while_mutable);
    t.file_backed = t.file_backed || c.file_backed;
  }
  // max_memtable_bytes stays 0: CheckWriteBufferSize asks each candidate,
  // and names the one that does not fit.
  return any_candidate ? t : RepTraits{};
}

// Each candidate, with its defaults, must take this write buffer and serve
// the rows face: the choice may fall on any of them.
template <typename Check>
Status CheckCandidates(const registry::AnyOptions& any, const char* what, Check check) {
  const AutoOptions& o = any.As<AutoOptions>();
  for (const std::string& name : SplitNames(o.candidates)) {
    RepSpec spec;
    Status s = RepSpec::Parse(name, &spec);
    if (s.ok()) s = check(spec);
    if (!s.ok()) {
      return Status::FromCode(s.code(), "memrep.Auto candidate " + name + " " + what + ": " +
                                            s.message() + "; remove it from candidates");
    }
  }
  return Status::OK();
}

Status CheckRowsFace(const registry::AnyOptions& any) {
  return CheckCandidates(any, "cannot serve RocksDB",
                         [](const RepSpec& spec) { return spec.CheckRowsFace(); });
}

Status CheckWriteBufferSize(const registry::AnyOptions& any, uint64_t write_buffer_size) {
  return CheckCandidates(any, "does not fit this write buffer", [&](const RepSpec& spec) {
    return spec.CheckWriteBufferSize(write_buffer_size);
  });
}

void Record(RepLineage::State& state, AutoDecision decision) REQUIRES(state.mu) {
  AutoCounters& c = state.counters;
  ++c.memtables;
  if (decision.switched) ++c.switches;
  auto it = std::find_if(c.per_rep.begin(), c.per_rep.end(),
                         [&](const auto& p) { return p.first == decision.rep; });
  if (it == c.per_rep.end()) {
    c.per_rep.emplace_back(decision.rep, 1);
  } else {
    ++it->second;
  }
  if (c.recent.size() == RepLineage::State::kRecentDecisions) c.recent.erase(c.recent.begin());
  c.recent.push_back(std::move(decision));
}

Status Make(const registry::AnyOptions& any, const RepContext& context, std::unique_ptr<Rep>* out) {
  const AutoOptions& o = any.As<AutoOptions>();
  // The candidates that serve this memtable's comparator and face.
  PolicyInput input;
  std::vector<RepSpec> specs;
  for (const std::string& name : SplitNames(o.candidates)) {
    RepSpec spec;
    Status s = RepSpec::Parse(name, &spec);
    if (!s.ok()) return s;
    if (!spec.CheckComparator(context.comparator).ok()) continue;
    if (context.rows && !spec.CheckRowsFace().ok()) continue;
    input.candidates.push_back(spec.name());
    specs.push_back(std::move(spec));
  }
  if (specs.empty()) {
    return Status::InvalidArgument("no memrep.Auto candidate (" + o.candidates +
                                   ") serves this comparator; add memrep.SortedHash or "
                                   "memrep.Vector to candidates");
  }
  input.pin = o.pin.empty() ? "" : Canonical(o.pin);
  input.start = o.start.empty() ? "" : Canonical(o.start);
  input.rotate = o.policy == "rotate";
  input.margin_percent = o.margin_percent;
  input.background_weight_percent = o.background_weight_percent;

  // Without a lineage, the memtable has a history of its own (none).
  std::shared_ptr<RepLineage::State> state =
      context.lineage != nullptr ? context.lineage->state() : std::make_shared<RepLineage::State>();
  concurrency::MutexLock lock(&state->mu);
  if (state->newest != nullptr) state->history.push_front(state->newest->Snapshot());
  while (state->history.size() > o.history) state->history.pop_back();
  input.current = state->newest_rep;
  input.history.assign(state->history.begin(), state->history.end());
  PolicyChoice choice = Choose(input);

  RepContext inner_context = context;
  inner_context.lineage = nullptr;
  std::unique_ptr<Rep> inner;
  Status s = specs[choice.index].NewRep(inner_context, &inner);
  if (!s.ok()) return s;
  const bool bytewise =
      format::KeyOrder(context.comparator).kind() != format::KeyOrder::Kind::kCustom;
  auto recorder = std::make_shared<WorkloadRecorder>(bytewise);
  out->reset(new AutoRep(std::move(inner), recorder));

  AutoDecision decision;
  decision.memtable = state->counters.memtables + 1;
  decision.rep = input.candidates[choice.index];
  decision.previous = state->newest_rep;
  decision.switched = !decision.previous.empty() && decision.previous != decision.rep;
  decision.reason = std::move(choice.reason);
  state->newest = std::move(recorder);
  state->newest_rep = decision.rep;
  Record(*state, std::move(decision));
  return Status::OK();
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
