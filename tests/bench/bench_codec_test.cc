// memrep_bench's keys, entries, lookup keys and key order: the formats a rep
// meets inside a RocksDB MemTable. Also the key choices.
#include <gtest/gtest.h>
#include <rocksdb/memtablerep.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "comparator_probe.h"
#include "entry_codec.h"
#include "key_comparator.h"
#include "key_generator.h"

namespace memrep::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

TEST(BenchKeys, BigEndianNumberThenZerosSoByteOrderIsNumericOrder) {
  const KeyCodec keys(16);
  const std::string k = keys.Make(0x0102030405060708ull);
  ASSERT_EQ(k.size(), 16u);
  EXPECT_EQ(k.substr(0, 8), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  EXPECT_EQ(k.substr(8), std::string(8, '\0'));
  const uint64_t numbers[] = {0, 1, 2, 255, 256, 65535, 1u << 31, 0xffffffffffull};
  for (size_t i = 0; i + 1 < std::size(numbers); ++i) {
    EXPECT_LT(keys.Make(numbers[i]), keys.Make(numbers[i + 1]));
  }
  for (uint64_t n : numbers) {
    uint64_t back = 0;
    ASSERT_TRUE(keys.Decode(keys.Make(n), &back));
    EXPECT_EQ(back, n);
  }
}

TEST(BenchKeys, DecodeRefusesKeysItDidNotMake) {
  const KeyCodec keys(12);
  uint64_t n;
  EXPECT_FALSE(keys.Decode("short", &n));
  std::string k = keys.Make(7);
  k.back() = 'x';  // padding not zero
  EXPECT_FALSE(keys.Decode(k, &n));
  EXPECT_FALSE(keys.Decode(KeyCodec(16).Make(7), &n));  // wrong size
}

// --shared_prefix: N bytes of one fixed text, then the number big-endian in
// the other key_size - N bytes, zero-padded on the left.
TEST(BenchKeys, SharedPrefixKeysKeepNumericOrderAndDecode) {
  const KeyCodec keys(32, 24);
  EXPECT_EQ(keys.shared_prefix(), 24u);
  const std::string k = keys.Make(0x0102030405060708ull);
  ASSERT_EQ(k.size(), 32u);
  EXPECT_EQ(k.substr(0, 24), std::string(kSharedPrefixText.substr(0, 24)));
  EXPECT_EQ(k.substr(24), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  EXPECT_NE(k.substr(0, 24), std::string(24, '\0'));  // not all zeros

  const uint64_t numbers[] = {0, 1, 2, 255, 256, 65535, 1u << 31, 0xffffffffull};
  for (size_t i = 0; i + 1 < std::size(numbers); ++i) {
    EXPECT_LT(keys.Make(numbers[i]), keys.Make(numbers[i + 1])) << numbers[i];
  }
  for (uint64_t n : numbers) {
    const std::string key = keys.Make(n);
    EXPECT_TRUE(key.starts_with(keys.prefix()));
    uint64_t back = 0;
    ASSERT_TRUE(keys.Decode(key, &back)) << n;
    EXPECT_EQ(back, n);
  }
  // Every key of a run shares the prefix, and byte order is numeric order.
  std::vector<std::string> made;
  for (uint64_t n = 0; n < 2000; n += 7) made.push_back(keys.Make(n));
  EXPECT_TRUE(std::is_sorted(made.begin(), made.end()));
}

TEST(BenchKeys, SharedPrefixLongerThanItsTextRepeatsIt) {
  const uint32_t n = static_cast<uint32_t>(kSharedPrefixText.size()) + 10;
  const KeyCodec keys(n + 4, n);  // the fewest bytes left for the number: 4
  const std::string k = keys.Make(0xa0b0c0d0);
  EXPECT_EQ(k.substr(0, kSharedPrefixText.size()), kSharedPrefixText);
  EXPECT_EQ(k.substr(kSharedPrefixText.size(), 10), kSharedPrefixText.substr(0, 10));
  EXPECT_EQ(k.substr(n), std::string("\xa0\xb0\xc0\xd0", 4));
  uint64_t back = 0;
  ASSERT_TRUE(keys.Decode(k, &back));
  EXPECT_EQ(back, 0xa0b0c0d0u);
  EXPECT_LT(keys.Make(0xfffffffe), keys.Make(0xffffffff));
}

TEST(BenchKeys, SharedPrefixDecodeRefusesOtherKeys) {
  const KeyCodec keys(20, 8);
  uint64_t n;
  std::string k = keys.Make(7);
  k[3] ^= 1;  // another prefix
  EXPECT_FALSE(keys.Decode(k, &n));
  k = keys.Make(7);
  k[8] = 'x';  // the left padding not zero
  EXPECT_FALSE(keys.Decode(k, &n));
  EXPECT_FALSE(keys.Decode(KeyCodec(20).Make(7), &n));     // no prefix
  EXPECT_FALSE(keys.Decode(KeyCodec(24, 8).Make(7), &n));  // wrong size
  EXPECT_FALSE(KeyCodec(20).Decode(keys.Make(7), &n));     // the other way round
  // Entries and lookup keys carry the whole key.
  const ValuePool values(10, 1);
  EntryWriter writer(keys, values);
  std::string buf(writer.entry_size(), '\0');
  writer.Write(buf.data(), 1234, 5);
  const DecodedEntry e = DecodeBenchEntry(buf.data(), keys);
  EXPECT_TRUE(e.ours);
  EXPECT_EQ(e.key_number, 1234u);
  EXPECT_EQ(e.seq, 5u);
  LookupTarget target(keys);
  target.Set(1234);
  EXPECT_EQ(target.user_key(), keys.Make(1234));
}

TEST(BenchEntry, RoundTripInRocksDbsMemtableFormat) {
  const KeyCodec keys(16);
  for (uint32_t item_size : {0u, 3u, 100u, 300u}) {
    const ValuePool values(item_size, 42);
    EntryWriter writer(keys, values);
    // varint32(24) + 24 + varint32(item_size) + item_size
    EXPECT_EQ(writer.entry_size(), 1 + 24 + (item_size < 128 ? 1 : 2) + item_size);
    std::string buf(writer.entry_size(), '\0');
    writer.Write(buf.data(), 1234, 99);

    // RocksDB's own decoder (exported by librocksdb) reads the internal key...
    const rdb::Slice internal_key = rdb::GetLengthPrefixedSlice(buf.data());
    ASSERT_EQ(internal_key.size(), 24u);
    EXPECT_EQ(std::string(internal_key.data(), 16), keys.Make(1234));
    uint64_t tag;
    std::memcpy(&tag, internal_key.data() + 16, 8);
    EXPECT_EQ(tag, (uint64_t{99} << 8) | 0x1);  // kTypeValue, little-endian
    // ...and the value follows, length-prefixed.
    const rdb::Slice value = rdb::GetLengthPrefixedSlice(internal_key.data() + 24);
    EXPECT_EQ(value.size(), item_size);

    const DecodedEntry e = DecodeBenchEntry(buf.data(), keys);
    EXPECT_TRUE(e.ours);
    EXPECT_EQ(e.key_number, 1234u);
    EXPECT_EQ(e.seq, 99u);
    EXPECT_EQ(e.type, 0x1);
    EXPECT_EQ(e.value, values.ValueFor(99));
    EXPECT_TRUE(values.Matches(e.value, 99));
    if (item_size > 0) {
      EXPECT_FALSE(values.Matches(e.value, 100)) << item_size;
    }
  }
}

TEST(BenchEntry, LookupTargetHasRocksDbsLookupKeyLayout) {
  const KeyCodec keys(16);
  LookupTarget target(keys);
  target.Set(77, 5);
  EXPECT_EQ(target.user_key(), keys.Make(77));
  const rdb::Slice internal_key = target.internal_key();
  ASSERT_EQ(internal_key.size(), 24u);
  EXPECT_EQ(std::string(internal_key.data(), 16), keys.Make(77));
  uint64_t tag;
  std::memcpy(&tag, internal_key.data() + 16, 8);
  EXPECT_EQ(tag, (uint64_t{5} << 8) | 0x16);  // the seek type
  // memtable_key = varint32 length | internal key
  EXPECT_EQ(rdb::GetLengthPrefixedSlice(target.memtable_key()), internal_key);
  // What the plugin reads out of a LookupKey.
  EXPECT_EQ(rocksdb_plugin::InternalKeyOf(target.lookup_key()), internal_key);
  target.Set(78);  // reusable
  EXPECT_EQ(target.user_key(), keys.Make(78));
}

std::string MemtableKey(const KeyCodec& keys, uint64_t number, SequenceNumber seq, uint8_t type) {
  const ValuePool none(0, 0);
  EntryWriter writer(keys, none);
  std::string buf(writer.entry_size(), '\0');
  writer.Write(buf.data(), number, seq);
  buf[1 + keys.key_size()] = static_cast<char>(type);  // the tag's low byte
  return buf;
}

TEST(BenchKeyOrder, UserKeyAscendingThenSequenceDescendingTypeIgnored) {
  const KeyCodec keys(16);
  const InternalKeyOrder order;
  const std::string a5 = MemtableKey(keys, 10, 5, 1), a9 = MemtableKey(keys, 10, 9, 1);
  const std::string b1 = MemtableKey(keys, 11, 1, 1);
  EXPECT_LT(order(a9.data(), a5.data()), 0);  // newer first
  EXPECT_GT(order(a5.data(), a9.data()), 0);
  EXPECT_LT(order(a5.data(), b1.data()), 0);  // then by key
  EXPECT_GT(order(b1.data(), a9.data()), 0);
  EXPECT_EQ(order(a5.data(), a5.data()), 0);
  // The type does not take part: a deletion and a put at one sequence are equal.
  const std::string a5_deletion = MemtableKey(keys, 10, 5, 0);
  EXPECT_EQ(order(a5.data(), a5_deletion.data()), 0);
  // The Slice overload takes an internal key without its length prefix.
  const rdb::Slice a9_internal = rdb::GetLengthPrefixedSlice(a9.data());
  EXPECT_GT(order(a5.data(), a9_internal), 0);
  EXPECT_EQ(order(a9.data(), a9_internal), 0);
  // memrep's factories must recognise it as bytewise, or they would build a
  // skip list instead.
  EXPECT_EQ(rocksdb_plugin::ProbeOrder(order), BytewiseComparator());
}

TEST(BenchKeyGenerator, ShuffledIndicesArePermutations) {
  std::vector<uint32_t> order = ShuffledIndices(1000, 3);
  EXPECT_NE(order, ShuffledIndices(1000, 4));
  EXPECT_EQ(order, ShuffledIndices(1000, 3));  // seeded
  std::sort(order.begin(), order.end());
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(order[i], i);
}

TEST(BenchKeyGenerator, ZipfianStaysInRangeAndIsSkewed) {
  const uint64_t n = 10000;
  const KeyChooser zipf(KeyDistribution::kZipfian, n, 0.99);
  const KeyChooser uniform(KeyDistribution::kUniform, n, 0);
  Random64 rng(1);
  std::vector<uint64_t> zipf_counts(n), uniform_counts(n);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t z = zipf.Next(rng), u = uniform.Next(rng);
    ASSERT_LT(z, n);
    ASSERT_LT(u, n);
    ++zipf_counts[z];
    ++uniform_counts[u];
  }
  const uint64_t zipf_top = *std::max_element(zipf_counts.begin(), zipf_counts.end());
  const uint64_t uniform_top = *std::max_element(uniform_counts.begin(), uniform_counts.end());
  EXPECT_GT(zipf_top, 10 * uniform_top);  // the hottest key is far hotter
  // Ranks are scattered over the key space: rank 0 is index 0, but index 1
  // is not rank 1.
  EXPECT_EQ(zipf_counts[0], zipf_top);
  EXPECT_LT(zipf_counts[1], zipf_top / 10);
}

}  // namespace
}  // namespace memrep::bench
