#include "auto/make_rep.h"

#include <utility>
#include <vector>

#include "auto/auto_rep.h"
#include "auto/candidates.h"
#include "auto/lineage.h"
#include "auto/policy.h"
#include "format/key_order.h"
#include "memrep/registry.h"

namespace memrep::auto_rep {

Status MakeRep(const AutoOptions& o, const RepContext& context, std::unique_ptr<Rep>* out) {
  // The candidates that serve this memtable's comparator and face.
  PolicyInput input;
  std::vector<RepSpec> specs;
  for (const std::string& name : SplitCandidates(o.candidates)) {
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
  input.pin = o.pin.empty() ? "" : CanonicalName(o.pin);
  input.start = o.start.empty() ? "" : CanonicalName(o.start);
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
  state->Record(std::move(decision));
  return Status::OK();
}

}  // namespace memrep::auto_rep
