// The registry's records: how a rep describes itself (Registration), and the
// lookup both faces use. The public view of it is memrep/registry.h.
//
// memrep's own reps are listed in src/builtin_reps.cc, one line each; a rep
// elsewhere (a test's, an application's) registers itself with a Registrar:
//
//   static const registry::Registrar kRegistrar(&kMyRepRegistration);
//
// Thread safety: registration and lookup from any thread; registrations are
// never removed, and a Registration is never copied (pointers to it stay valid).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/registry.h"
#include "memrep/rep.h"
#include "memrep/status.h"
#include "registry/option_table.h"

namespace memrep::registry {

// Every field has a default, so a registration written with designated
// initializers names only what it sets (src/registry/typed_registration.h).
struct Registration {
  std::string name = {};                  // canonical: what factories and OPTIONS files write
  std::vector<std::string> aliases = {};  // other spellings: a nickname, a seed design's own name
  std::string summary = {};               // one line, for listings
  RepTraits traits = {};
  const OptionTable* options = nullptr;  // REQUIRED (an empty table if the rep has none)
  std::string positional_option = {};    // the option "<name>:<value>" sets; "" if none
  // Options strings the conformance suite runs besides the defaults: small
  // thresholds that make every background path of the rep run in small
  // tests ("seal_threshold=3;max_runs=3").
  std::vector<std::string> conformance_options = {};
  // Optional: OK if a memtable of write_buffer_size bytes fits a rep with
  // these options, else InvalidArgument saying what to change (a rep whose
  // capacity is an option). traits.max_memtable_bytes is checked first.
  Status (*check_write_buffer_size)(const AnyOptions& options,
                                    uint64_t write_buffer_size) = nullptr;
  // Optional: OK if these options can serve the RocksDB face (rows), else
  // NotSupported or InvalidArgument saying why and what to use instead; run
  // when a DB opens, so a rep is never refused later, when a memtable is made.
  Status (*check_rows_face)(const AnyOptions& options) = nullptr;
  // Optional: rules that need the registry itself (options that name other
  // reps), run after the table's own checks by RepSpec's Parse, Set and
  // Validate; InvalidArgument saying what is wrong. (A table's checks run
  // while the registry is built, so they must not look reps up.)
  Status (*check_options)(const AnyOptions& options) = nullptr;
  // Optional: the traits of a rep with these options, where they depend on
  // them (a rep that builds other reps); else `traits` above.
  RepTraits (*traits_of)(const AnyOptions& options) = nullptr;
  // Optional: what this rep decided for the newest memtable of `lineage`, as
  // one line for a log ("" if it decided nothing): a rep that chooses per
  // memtable (one that builds other reps). The RocksDB face logs the line
  // each time it makes a memtable.
  std::string (*describe_decision)(const RepLineage& lineage) = nullptr;
  // Builds a rep from options that the table validated.
  Status (*make)(const AnyOptions& options, const RepContext& context,
                 std::unique_ptr<Rep>* out) = nullptr;
};

// Adds a rep. REQUIRES: `registration` lives as long as the process. Fails
// (InvalidArgument) if its name or an alias is already taken.
Status Register(const Registration* registration);

// Registers at static initialization.
class Registrar {
 public:
  explicit Registrar(const Registration* registration);
};

// The rep with this name or alias, or nullptr.
const Registration* Find(std::string_view name);
// Every rep: memrep's own first, then the others in registration order.
std::vector<const Registration*> All();
// "memrep.SortedHash, sorted_hash, ..." for messages.
std::string KnownNames();

// Calls fn for every rep registered now, and then for every rep registered
// later, as it registers (the RocksDB plugin adds its factories this way).
// fn runs under the registry's lock: it must not register reps.
void ForEachNowAndLater(std::function<void(const Registration&)> fn);

// The line `spec`'s rep gives for the newest memtable of `lineage`
// (Registration::describe_decision); "" if the rep describes none.
std::string DescribeNewestDecision(const RepSpec& spec, const RepLineage& lineage);

// memrep's own reps (src/builtin_reps.cc).
const std::vector<const Registration*>& BuiltinReps();

}  // namespace memrep::registry
