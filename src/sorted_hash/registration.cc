#include "sorted_hash/registration.h"

#include "memrep/sorted_hash.h"
#include "registry/run_option_rows.h"
#include "registry/typed_registration.h"
#include "sorted_hash/sorted_hash_rep.h"

namespace memrep {

namespace sorted_hash {

const registry::OptionTable& OptionTableOf() {
  using O = SortedHashOptions;
  static const registry::OptionTable table = registry::WithRunIndexOptions(
      registry::OptionTable::For<O>(O::kName).Count(
          "bucket_count", &O::bucket_count, 1, O::kMaxBucketCount,
          "hash buckets (8 bytes each: a chain's head and a filter of its keys), taken from "
          "the memtable's arena: the most a table of the growing index has; auto: one per 512 "
          "bytes of rows, the index growing from 64 buckets as the memtable fills",
          /*allows_auto=*/true),
      "entries a writer thread adds between requests to sort them in the background");
  return table;
}

namespace {

// With the default region (SortedHashRep::Make's last argument is for tests).
Status Make(const SortedHashOptions& options, const RepContext& context,
            std::unique_ptr<Rep>* out) {
  return SortedHashRep::Make(options, context, out);
}

using Typed = registry::TypedRegistration<SortedHashOptions, OptionTableOf, Make>;

}  // namespace

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = Typed::Describe({
      .aliases = {"sorted_hash", "speedb.HashSpdRepFactory"},
      .summary = "hash index on the full user key for O(1) writes and point reads, sorted runs "
                 "cut and merged in the background for ordered reads",
      .traits = {.concurrent_insert = true,
                 .duplicates = RepTraits::Duplicates::kAll,
                 .comparators = RepTraits::Comparators::kByteEquality,
                 .point_read_while_mutable = RepTraits::Cost::kConstant,
                 .new_iterator_while_mutable = RepTraits::Cost::kConstant,
                 .max_memtable_bytes = SortedHashOptions::kMaxWriteBufferSize},
      .positional_option = "bucket_count",
      .conformance_options =
          {
              // Tiny thresholds: many runs, background cuts and merges on every
              // few inserts, iterators that seal their tails, and long bucket chains.
              "bucket_count=16;seal_threshold=3;background_cut=5;max_runs=3",
              // No background cut: iterators extend a shared, incrementally
              // sorted tail and publish it as a run at seal_threshold; seeks
              // pay for no merge.
              "seal_threshold=300;background_cut=16777216;max_runs=4;seek_merges=false",
          },
  });
  return registration;
}

}  // namespace sorted_hash

Status SortedHashOptions::Validate() const { return sorted_hash::Typed::Validate(*this); }

std::string SortedHashOptions::Spec() const { return sorted_hash::Typed::Spec(*this); }

}  // namespace memrep
