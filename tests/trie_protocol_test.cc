// The trie's concurrency protocol on its own (src/trie/protocol.h): the lock
// word, replacement stamps, and when a retired node's block may be reused.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "trie/protocol.h"

namespace memrep::trie {
namespace {

// A node header in ordinary memory: the protocol reads only its lock word.
struct FakeNode {
  alignas(64) NodeHeader header{};
};

TEST(TrieProtocol, LockExcludesOtherHoldersAndPublishesTheirWrites) {
  FakeNode root;
  Protocol p(&root.header);
  FakeNode node;
  uint64_t plain = 0;  // written only under the lock: TSan sees a race if it is not exclusive
  constexpr int kThreads = 4, kRounds = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        ASSERT_TRUE(p.Lock(&node.header));
        const uint64_t v = plain;
        plain = v + 1;
        Protocol::Unlock(&node.header);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(plain, uint64_t{kThreads} * kRounds);
  EXPECT_EQ(node.header.lock.load(), 0u);
}

TEST(TrieProtocol, AReplacedNodeCannotBeLockedAgain) {
  FakeNode root;
  Protocol p(&root.header);
  FakeNode node;
  ASSERT_TRUE(p.Lock(&node.header));
  Protocol::Replace(&node.header);
  EXPECT_FALSE(p.Lock(&node.header));
  EXPECT_FALSE(p.Lock(&node.header));  // for good, not once
}

TEST(TrieProtocol, AWaiterForALockedNodeLearnsThatItWasReplaced) {
  FakeNode root;
  Protocol p(&root.header);
  FakeNode node;
  ASSERT_TRUE(p.Lock(&node.header));
  std::atomic<int> result{-1};
  std::thread waiter([&] { result.store(p.Lock(&node.header) ? 1 : 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(result.load(), -1);  // still waiting: the node is locked
  Protocol::Replace(&node.header);
  waiter.join();
  EXPECT_EQ(result.load(), 0);
}

TEST(TrieProtocol, APathStampBreaksWhenANodeIsReplaced) {
  FakeNode root;
  Protocol p(&root.header);
  Protocol::PathStamp stamp;
  EXPECT_FALSE(stamp.Valid(p));  // no path yet
  stamp.Begin(p);
  stamp.Keep(true);
  EXPECT_TRUE(stamp.Valid(p));
  stamp.Recheck(p);
  EXPECT_TRUE(stamp.Valid(p));
  p.Retire(1, Kind::kK2);
  EXPECT_FALSE(stamp.Valid(p));
  // Recheck drops the path and restamps it with the count it read: a new
  // descent (Begin, Keep) is valid again, a Recheck alone is not.
  stamp.Recheck(p);
  EXPECT_FALSE(stamp.Valid(p));
  stamp.Begin(p);
  stamp.Keep(true);
  EXPECT_TRUE(stamp.Valid(p));
  stamp.Keep(false);
  EXPECT_FALSE(stamp.Valid(p));
  EXPECT_EQ(p.Replacements(), 1u);
}

// Retires `n` nodes of K16 numbered from `first`.
void RetireMany(Protocol* p, Ref first, int n) {
  for (int i = 0; i < n; ++i) p->Retire(first + static_cast<Ref>(i) * 64, Kind::kK16);
}

TEST(TrieProtocol, ARetiredBlockWaitsForTheGuardsThatCouldHoldIt) {
  FakeNode root;
  Protocol p(&root.header);
  Ref got = 0;
  {
    // A reader inside the trie since before the nodes were unlinked.
    Protocol::ReadGuard reader(p);
    RetireMany(&p, 1000, 64);
    EXPECT_FALSE(p.TakeNodeBlock(Kind::kK2, &got)) << "reused while a reader may hold it: " << got;
    uint64_t units = 0;
    EXPECT_FALSE(p.TakeChunkBlock(8, &got, &units));
  }
  // The reader has left; the next stamping checks the limbo again.
  RetireMany(&p, 100000, 64);
  std::set<Ref> first;
  for (int i = 0; i < 64; ++i) first.insert(1000 + static_cast<Ref>(i) * 64);
  ASSERT_TRUE(p.TakeNodeBlock(Kind::kK16, &got));
  EXPECT_TRUE(first.count(got) == 1 || got >= 100000) << got;
  EXPECT_EQ(p.Replacements(), 128u);
}

TEST(TrieProtocol, ASmallNodeTakesPartOfABigBlockAndTheRestStaysFree) {
  FakeNode root;
  Protocol p(&root.header);
  RetireMany(&p, 1000, 40);  // stamped and checked with no guard open: free
  const uint32_t k2 = kNodeBytes[0] / kUnit, k16 = kNodeBytes[2] / kUnit;
  Ref a = 0, b = 0;
  ASSERT_TRUE(p.TakeNodeBlock(Kind::kK2, &a));
  // The rest of that K16 block (k16 - k2 units) is released, and a chunk of
  // that size comes from it.
  uint64_t units = 0;
  ASSERT_TRUE(p.TakeChunkBlock(k16 - k2, &b, &units));
  EXPECT_EQ(b, a + k2);
  EXPECT_EQ(units, k16 - k2);
}

TEST(TrieProtocol, ReleasedRestsAreFreeAtOnceAndTooSmallOnesAreDropped) {
  FakeNode root;
  Protocol p(&root.header);
  Protocol::ReadGuard reader(p);  // a rest was never handed out: no guard matters
  Ref got = 0;
  uint64_t units = 0;
  p.Release(500, kNodeBytes[0] / kUnit - 1);  // smaller than any node
  EXPECT_FALSE(p.TakeChunkBlock(1, &got, &units));
  p.Release(700, 40);
  EXPECT_FALSE(p.TakeChunkBlock(41, &got, &units));
  ASSERT_TRUE(p.TakeChunkBlock(40, &got, &units));
  EXPECT_EQ(got, 700u);
  EXPECT_EQ(units, 40u);
  EXPECT_FALSE(p.TakeChunkBlock(1, &got, &units));  // taken once
}

TEST(TrieProtocol, AFrozenProtocolsReadGuardsClaimNoSlot) {
  FakeNode root;
  Protocol p(&root.header);
  p.Freeze();
  EXPECT_TRUE(p.frozen());
  // More guards at once than the epoch domain has slots: a guard that
  // claimed one would wait for a free slot forever.
  std::vector<std::unique_ptr<Protocol::ReadGuard>> guards;
  for (uint32_t i = 0; i < concurrency::EpochDomain::kSlots + 8; ++i) {
    guards.push_back(std::make_unique<Protocol::ReadGuard>(p));
  }
  EXPECT_EQ(guards.size(), concurrency::EpochDomain::kSlots + 8);
}

}  // namespace
}  // namespace memrep::trie
