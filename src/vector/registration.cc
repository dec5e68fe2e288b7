#include "vector/registration.h"

#include "memrep/vector.h"
#include "registry/run_option_rows.h"
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

Status Make(const registry::AnyOptions& options, const RepContext& context,
            std::unique_ptr<Rep>* out) {
  return VectorRep::Make(options.As<VectorOptions>(), context, out);
}

}  // namespace

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = [] {
    registry::Registration r;
    r.name = VectorOptions::kName;
    r.aliases = {"vector_rep"};
    r.summary =
        "append-only: a write is a copy and one CAS on the writer's own list; readers sort "
        "only what is new, and a frozen vector becomes one sorted array in the background";
    r.traits.concurrent_insert = true;
    r.traits.duplicates = RepTraits::Duplicates::kInBatch;
    r.traits.comparators = RepTraits::Comparators::kAny;
    r.traits.point_read_while_mutable = RepTraits::Cost::kLogarithmic;
    r.traits.new_iterator_while_mutable = RepTraits::Cost::kConstant;
    r.traits.max_memtable_bytes = VectorOptions::kMaxWriteBufferSize;
    r.options = &OptionTableOf();
    r.positional_option = "reserve";
    r.conformance_options = {
        // Tiny thresholds: many runs, background cuts and merges on every few
        // inserts, readers that seal what they sorted.
        "seal_threshold=3;background_cut=5;max_runs=3;reserve=64",
        // No background cut: readers extend a shared, incrementally sorted
        // tail and publish it as a run at seal_threshold.
        "seal_threshold=300;background_cut=16777216;max_runs=4",
    };
    r.make = Make;
    return r;
  }();
  return registration;
}

}  // namespace vector

Status VectorOptions::Validate() const { return vector::OptionTableOf().Validate(this); }

std::string VectorOptions::Spec() const {
  return std::string("id=") + kName + ";" + vector::OptionTableOf().ToString(this);
}

}  // namespace memrep
