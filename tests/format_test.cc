#include <gtest/gtest.h>

#include <random>
#include <string_view>

using namespace std::string_view_literals;

#include "format/coding.h"
#include "format/key_order.h"
#include "memrep/entry.h"
#include "test_util.h"

namespace memrep {
namespace {

TEST(Varint, RoundTripsAndRejectsTruncation) {
  for (uint32_t v : {0u, 1u, 127u, 128u, 300u, 16383u, 16384u, 0xffffffffu}) {
    char buf[5];
    char* end = format::EncodeVarint32(buf, v);
    EXPECT_EQ(end - buf, format::VarintLength(v));
    uint32_t out = 0;
    EXPECT_EQ(format::DecodeVarint32(buf, &out), end);
    EXPECT_EQ(out, v);
    EXPECT_EQ(format::DecodeVarint32Checked(buf, end, &out), end);
    if (end - buf > 1) {
      EXPECT_EQ(format::DecodeVarint32Checked(buf, end - 1, &out), nullptr);
    }
  }
}

TEST(Row, EncodesTheRocksDbLayout) {
  char buf[64];
  char* end = EncodeRow(buf, EntryView{"abc", PackTag(0x0102, 1), "xy"});
  ASSERT_EQ(end - buf, static_cast<ptrdiff_t>(RowSize(3, 2)));
  // varint32(11) | "abc" | fixed64 LE ((0x0102 << 8) | 1) | varint32(2) | "xy"
  const unsigned char expected[] = {11, 'a', 'b', 'c', 0x01, 0x02, 0x01, 0,
                                    0,  0,   0,   0,   2,    'x',  'y'};
  ASSERT_EQ(sizeof(expected), static_cast<size_t>(end - buf));
  EXPECT_EQ(0, std::memcmp(buf, expected, sizeof(expected)));
  EntryView v = DecodeRow(buf);
  EXPECT_EQ(v.user_key, "abc");
  EXPECT_EQ(v.sequence(), 0x0102u);
  EXPECT_EQ(v.type(), 1);
  EXPECT_EQ(v.value, "xy");
  EXPECT_EQ(EntryView::Of("abc", 0x0102, ValueType::kValue, "xy").tag, v.tag);
}

TEST(Row, LongKeysAndValuesUseMultiByteLengths) {
  std::string key(300, 'k'), value(70000, 'v');
  std::string buf(RowSize(key.size(), value.size()), '\0');
  EncodeRow(buf.data(), EntryView{key, PackTag(kMaxSequenceNumber, 0), value});
  EntryView v = DecodeRow(buf.data());
  EXPECT_EQ(v.user_key, key);
  EXPECT_EQ(v.value, value);
  EXPECT_EQ(v.sequence(), kMaxSequenceNumber);
  EXPECT_EQ(v.type(), 0);
}

TEST(KeyOrder, UserKeyAscendingThenSequenceDescendingTypeIgnored) {
  format::KeyOrder order(nullptr);
  EXPECT_LT(order.Compare("a", PackTag(1, 1), "b", PackTag(9, 1)), 0);
  EXPECT_LT(order.Compare("a", PackTag(9, 1), "a", PackTag(1, 1)), 0);
  EXPECT_EQ(order.Compare("a", PackTag(5, 1), "a", PackTag(5, 2)), 0);
  EXPECT_LT(order.Compare("a", PackTag(1, 1), "a\0"sv, PackTag(9, 1)), 0);
  EXPECT_LT(order.Compare("", PackTag(1, 1), "a", PackTag(9, 1)), 0);
}

TEST(KeyOrder, ReverseBytewiseIsInlinedWithAnInvertedPrefix) {
  format::KeyOrder order(ReverseBytewiseComparator());
  EXPECT_EQ(order.kind(), format::KeyOrder::Kind::kReverseBytewise);
  EXPECT_GT(order.CompareUserKeys("a", "b"), 0);
  EXPECT_LT(order.CompareUserKeys("ab", "a"), 0);
  EXPECT_LT(order.Compare("b", PackTag(1, 1), "a", PackTag(9, 1)), 0);
  EXPECT_LT(order.Compare("a", PackTag(9, 1), "a", PackTag(1, 1)), 0) << "sequences still descend";
  EXPECT_LT(order.Prefix("b"), order.Prefix("a"));
}

// The prefix of each built-in order: Prefix(a) < Prefix(b) must imply a < b.
class PrefixTest : public ::testing::TestWithParam<const UserKeyComparator*> {};

TEST_P(PrefixTest, PrefixNeverContradictsTheOrder) {
  format::KeyOrder order(GetParam());
  std::mt19937 rng(1);
  for (int i = 0; i < 20000; ++i) {
    std::string a(rng() % 12, '\0'), b(rng() % 12, '\0');
    for (char& c : a) c = static_cast<char>(rng() % 4 == 0 ? 0 : rng());
    for (char& c : b) c = static_cast<char>(rng() % 4 == 0 ? 0 : rng());
    const int c = order.CompareUserKeys(a, b);
    const uint64_t pa = order.Prefix(a), pb = order.Prefix(b);
    if (pa < pb) {
      EXPECT_LT(c, 0);
    }
    if (pa > pb) {
      EXPECT_GT(c, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltinOrders, PrefixTest,
                         ::testing::Values(BytewiseComparator(), ReverseBytewiseComparator()));

TEST(KeyOrder, CustomComparatorHasNoPrefix) {
  struct Reverse final : UserKeyComparator {
    const char* Name() const override { return "r"; }
    int Compare(std::string_view a, std::string_view b) const override {
      return BytewiseComparator()->Compare(b, a);
    }
  } reverse;
  format::KeyOrder order(&reverse);
  EXPECT_FALSE(order.bytewise());
  EXPECT_EQ(order.Prefix("zzzzzzzzz"), 0u);
  EXPECT_GT(order.CompareUserKeys("a", "b"), 0);
  EXPECT_TRUE(format::KeyOrder(BytewiseComparator()).bytewise());
}

}  // namespace
}  // namespace memrep
