// memrep.Auto's constructor: a memtable's rep, chosen for it. The candidates
// that serve the memtable's comparator and face are offered to the policy
// (src/auto/policy.h) with the statistics of the lineage's recent
// memtables; the chosen rep is built, wrapped in an AutoRep that counts what
// it is asked, and the decision is recorded in the lineage.
#pragma once

#include <memory>

#include "memrep/auto.h"
#include "memrep/rep.h"
#include "memrep/status.h"

namespace memrep::auto_rep {

// REQUIRES: `options` validated (the registry's checks included). Without
// a lineage (context.lineage == nullptr) the memtable has no history and
// gets the start rep. Errors: no candidate serves the comparator
// (InvalidArgument), or the chosen rep's own.
Status MakeRep(const AutoOptions& options, const RepContext& context, std::unique_ptr<Rep>* out);

}  // namespace memrep::auto_rep
