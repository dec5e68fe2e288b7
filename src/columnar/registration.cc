#include "columnar/registration.h"

#include "columnar/columnar_rep.h"
#include "memrep/columnar.h"
#include "registry/typed_registration.h"

namespace memrep {

namespace columnar {

const registry::OptionTable& OptionTableOf() {
  using O = ColumnarOptions;
  static const registry::OptionTable table =
      registry::OptionTable::For<O>(O::kName)
          .Count("shards", &O::shards, 1, O::kMaxShards,
                 "writer regions: each holds an active block and a byte chunk, and a writer "
                 "thread appends to its own")
          .Count("block_size", &O::block_size, O::kMinBlockSize, O::kMaxBlockSize,
                 "entries per block (rounded down to a power of two); auto: the fewest whose "
                 "columns an arena gives a block of its own (from write_buffer_size), 256..8192",
                 /*allows_auto=*/true)
          .Count("bucket_count", &O::bucket_count, 1, O::kMaxBucketCount,
                 "index buckets of 64 bytes (seven slots each; rounded up to a power of two); "
                 "auto: one per 1024 bytes of write_buffer_size",
                 /*allows_auto=*/true)
          .Bytes("write_buffer_size", &O::write_buffer_size, O::kMinWriteBufferSize,
                 O::kMaxWriteBufferSize,
                 "the memtable size the rep is sized for; auto: the one the memtable is "
                 "expected to reach, else 64 MiB",
                 /*allows_auto=*/true)
          .Count("max_sorted_blocks", &O::max_sorted_blocks, 1, O::kMaxSortedBlocks,
                 "sorted blocks kept at most while writes continue; more are merged");
  return table;
}

namespace {

using Typed = registry::TypedRegistration<ColumnarOptions, OptionTableOf, ColumnarRep::Make>;

}  // namespace

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = Typed::Describe({
      .aliases = {"columnar"},
      .summary = "write-optimised: each writer appends to its own block of columns, a "
                 "fingerprinted hash index answers point reads, full blocks are radix-sorted "
                 "in the background",
      .traits = {.concurrent_insert = true,
                 .duplicates = RepTraits::Duplicates::kInBatch,
                 .comparators = RepTraits::Comparators::kBytewise,
                 .point_read_while_mutable = RepTraits::Cost::kConstant,
                 .new_iterator_while_mutable = RepTraits::Cost::kConstant,
                 .max_memtable_bytes = ColumnarOptions::kMaxWriteBufferSize},
      .positional_option = "block_size",
      .conformance_options =
          {
              // Tiny blocks and few sorted blocks: sealing, background sorts and
              // merges every few inserts; one region that every writer shares.
              "block_size=16;max_sorted_blocks=2;shards=1",
              // Many regions and few buckets: keys spill into overflow buckets
              // (tests/columnar_test.cc runs a single bucket with thousands of keys).
              "block_size=64;shards=64;bucket_count=64",
          },
  });
  return registration;
}

}  // namespace columnar

Status ColumnarOptions::Validate() const { return columnar::Typed::Validate(*this); }

std::string ColumnarOptions::Spec() const { return columnar::Typed::Spec(*this); }

}  // namespace memrep
