#include "vector/registration.h"

#include "memrep/vector.h"
#include "registry/run_option_rows.h"
#include "registry/typed_registration.h"
#include "vector/vector_rep.h"

namespace memrep {

namespace vector {

const registry::OptionTable& OptionTableOf() {
  using O = VectorOptions;
  static const registry::OptionTable table = registry::WithRunIndexOptions(
      registry::OptionTable::For<O>(O::kName).Count(
          "reserve", &O::reserve, 1, O::kMaxReserve,
          "entries the memtable is expected to hold; sizes the chunks entries are "
          "appended to; auto: from write_buffer_size",
          /*allows_auto=*/true),
      "entries a writer thread adds between requests to sort them in the background (done "
      "only while a core is spare)");
  return table;
}

namespace {

// With the default region (VectorRep::Make's last argument is for tests).
Status Make(const VectorOptions& options, const RepContext& context, std::unique_ptr<Rep>* out) {
  return VectorRep::Make(options, context, out);
}

using Typed = registry::TypedRegistration<VectorOptions, OptionTableOf, Make>;

}  // namespace

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = Typed::Describe({
      .aliases = {"vector_rep"},
      .summary = "append-only: a write is a copy and one CAS on the writer's own list; readers "
                 "sort only what is new, and a frozen vector becomes one sorted array in the "
                 "background",
      .traits = {.concurrent_insert = true,
                 .duplicates = RepTraits::Duplicates::kSameThread,
                 .comparators = RepTraits::Comparators::kAny,
                 .point_read_while_mutable = RepTraits::Cost::kLogarithmic,
                 .new_iterator_while_mutable = RepTraits::Cost::kConstant,
                 .max_memtable_bytes = VectorOptions::kMaxWriteBufferSize},
      .positional_option = "reserve",
      .conformance_options =
          {
              // Tiny thresholds: many runs, background cuts and merges on every
              // few inserts, readers that seal what they sorted.
              "seal_threshold=3;background_cut=5;max_runs=3;reserve=64",
              // No background cut: readers extend a shared, incrementally
              // sorted tail and publish it as a run at seal_threshold; seeks
              // pay for no merge.
              "seal_threshold=300;background_cut=16777216;max_runs=4;seek_merges=false",
          },
  });
  return registration;
}

}  // namespace vector

Status VectorOptions::Validate() const { return vector::Typed::Validate(*this); }

std::string VectorOptions::Spec() const { return vector::Typed::Spec(*this); }

}  // namespace memrep
