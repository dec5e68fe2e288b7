// memrep's own reps: a rep joins both faces, the conformance suite and the
// benchmarks with one line here.
#include "auto/registration.h"
#include "columnar/registration.h"
#include "registry/registry.h"
#include "sorted_hash/registration.h"
#include "trie/registration.h"
#include "vector/registration.h"

namespace memrep::registry {

const std::vector<const Registration*>& BuiltinReps() {
  static const std::vector<const Registration*> reps = {
      &sorted_hash::RepRegistration(), &vector::RepRegistration(),   &trie::RepRegistration(),
      &columnar::RepRegistration(),    &auto_rep::RepRegistration(),
  };
  return reps;
}

}  // namespace memrep::registry
