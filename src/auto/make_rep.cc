#include "auto/make_rep.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "auto/auto_rep.h"
#include "auto/candidates.h"
#include "auto/cost_book.h"
#include "auto/learned_file.h"
#include "auto/lineage.h"
#include "auto/policy.h"
#include "format/key_order.h"
#include "memrep/registry.h"

namespace memrep::auto_rep {
namespace {

// Reads the learned_file into the lineage (its first memtable with this
// file). Returns what to say of it in the decision's reason.
std::string Restore(RepLineage::State* state, const std::vector<std::string>& candidates)
    REQUIRES(state->mu) {
  Learned learned;
  const Status s = LoadLearned(state->learned_file, state->id, &learned);
  if (s.IsNotFound()) return s.message() + " (it is written as the lineage learns)";
  if (!s.ok()) return s.message() + "; ignored, and replaced at the next save";
  learned.book.Retain(candidates);
  size_t restored = 0;
  for (const auto& [rep, ops] : learned.book.reps()) {
    for (size_t op = 0; op < kOps; ++op) {
      if (ops[op].samples == 0 || state->book.Has(rep, static_cast<Op>(op))) continue;
      state->book.Set(rep, static_cast<Op>(op), ops[op]);
      ++restored;
    }
  }
  const bool settled =
      std::find(candidates.begin(), candidates.end(), learned.settled) != candidates.end();
  if (settled && state->settled.empty()) state->settled = learned.settled;
  return "memrep.Auto learned_file " + state->learned_file + ": restored " +
         std::to_string(restored) + " measured figures" +
         (settled ? ", settled on " + learned.settled : std::string());
}

}  // namespace

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
  input.learn = o.learn;
  input.explore_percent = o.explore_percent;
  const Prior prior(o.prior);
  input.prior = &prior;

  // Without a lineage, the memtable has a history of its own (none).
  std::shared_ptr<RepLineage::State> state = context.lineage != nullptr
                                                 ? context.lineage->state()
                                                 : std::make_shared<RepLineage::State>(0);
  concurrency::MutexLock lock(&state->mu);
  std::string note;
  if (!o.learned_file.empty() && (!state->learned_read || state->learned_file != o.learned_file)) {
    state->learned_file = o.learned_file;
    state->learned_read = true;
    note = Restore(state.get(), input.candidates);
  }
  if (state->newest != nullptr) {
    const WorkloadStats stats = state->newest->Snapshot();
    if (o.learn) LearnFrom(stats, state->newest_rep, &state->book);
    // Its background and frozen figures come when it is destroyed.
    state->pending.push_back({state->newest, state->newest_rep, stats});
    if (state->pending.size() > RepLineage::State::kPendingBackground) state->pending.pop_front();
    state->history.push_front(stats);
  }
  if (o.learn) state->Harvest();
  while (state->history.size() > o.history) state->history.pop_back();
  input.current = state->newest_rep;
  input.settled = state->settled;
  input.history.assign(state->history.begin(), state->history.end());
  input.book = &state->book;
  input.recent_trials =
      static_cast<uint32_t>(std::count(state->trials.begin(), state->trials.end(), true));
  // A lineage restored from its learned_file starts where it settled.
  if (input.current.empty() && !state->settled.empty() && input.start.empty()) {
    input.start = state->settled;
  }
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
  decision.trial = choice.trial;
  decision.reason = note.empty() ? std::move(choice.reason) : note + "; " + choice.reason;
  state->trials.push_back(choice.trial);
  if (state->trials.size() > kTrialWindow) state->trials.pop_front();
  if (!choice.trial) state->settled = decision.rep;
  state->newest = std::move(recorder);
  state->newest_rep = decision.rep;
  state->Record(std::move(decision));
  if (!state->learned_file.empty() &&
      state->counters.memtables - state->saved_at >= RepLineage::State::kSaveEvery) {
    const std::string failed = state->Save();
    if (!failed.empty()) state->counters.recent.back().reason += "; " + failed;
  }
  return Status::OK();
}

}  // namespace memrep::auto_rep
