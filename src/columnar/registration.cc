#include "columnar/registration.h"

#include "columnar/columnar_rep.h"
#include "memrep/columnar.h"
#include "registry/run_option_rows.h"
#include "registry/typed_registration.h"

namespace memrep {

namespace columnar {

const registry::OptionTable& OptionTableOf() {
  using O = ColumnarOptions;
  static const registry::OptionTable table =
      registry::WithWriteBufferSize(
          registry::OptionTable::For<O>(O::kName)
              .Count("shards", &O::shards, 1, O::kMaxShards,
                     "writer regions: each holds a queue of the newest entries a writer thread "
                     "links into the index a few inserts late, and a writer uses its own")
              .Count("block_size", &O::block_size, O::kMinBlockSize, O::kMaxBlockSize,
                     "entries a writer thread adds between requests to sort them in the "
                     "background (the sorted runs' background cut: what a block was); auto: 4096",
                     /*allows_auto=*/true)
              .Count("bucket_count", &O::bucket_count, 1, O::kMaxBucketCount,
                     "index buckets of 64 bytes (twelve slots each): the most a table of the "
                     "growing index has; auto: one per 1280 bytes of rows, the index growing "
                     "from 8 buckets",
                     /*allows_auto=*/true))
          .Count("max_sorted_blocks", &O::max_sorted_blocks, 1, O::kMaxSortedBlocks,
                 "sorted runs kept at most while writes continue; more are merged")
          .Bool("seek_merges", &O::seek_merges,
                "merge the runs below the biggest while iterators seek beside writers, as far as "
                "the seeks pay for the copy; false: only max_sorted_blocks bounds them");
  return table;
}

namespace {

// With the default region (ColumnarRep::Make's last argument is for tests).
Status Make(const ColumnarOptions& options, const RepContext& context, std::unique_ptr<Rep>* out) {
  return ColumnarRep::Make(options, context, out);
}

using Typed = registry::TypedRegistration<ColumnarOptions, OptionTableOf, Make>;

}  // namespace

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = Typed::Describe({
      .aliases = {"columnar"},
      .summary = "write-optimised: each writer appends rows to its own chunk, a fingerprinted "
                 "hash index (linked a few inserts late) answers point reads, and the sorted "
                 "runs the sorted hash rep uses serve ordered reads",
      .traits = {.concurrent_insert = true,
                 .duplicates = RepTraits::Duplicates::kSameThread,
                 .comparators = RepTraits::Comparators::kByteEquality,
                 .point_read_while_mutable = RepTraits::Cost::kConstant,
                 .new_iterator_while_mutable = RepTraits::Cost::kConstant,
                 .max_memtable_bytes = ColumnarOptions::kMaxWriteBufferSize},
      .positional_option = "block_size",
      .conformance_options =
          {
              // Background cuts every 16 inserts and few runs: background sorts
              // and merges every few inserts; one region that every writer shares.
              "block_size=16;max_sorted_blocks=2;shards=1",
              // Many regions and few buckets: keys spill into overflow buckets
              // (tests/columnar_test.cc runs a single bucket with thousands of keys);
              // seeks pay for no merge.
              "block_size=64;shards=64;bucket_count=64;seek_merges=false",
          },
  });
  return registration;
}

}  // namespace columnar

Status ColumnarOptions::Validate() const { return columnar::Typed::Validate(*this); }

std::string ColumnarOptions::Spec() const { return columnar::Typed::Spec(*this); }

}  // namespace memrep
