#include "runs/write_list.h"

#include <gtest/gtest.h>

#include <vector>

#include "memory/arena.h"

namespace memrep::runs {
namespace {

// Push reports a shard's marks: kCut every due_every nodes, and kTail once
// at the mark ArmTail set; with no kTail armed, only kCut.
TEST(WriteList, PushReportsTheCutAndTailMarks) {
  memory::Arena arena;
  RowRegion region(&arena, 1 << 16, WriteList::kLinkBytes);
  ASSERT_TRUE(region.Init().ok());
  WriteList list(/*due_every=*/100);
  auto push = [&] {
    RowRef ref;
    EXPECT_TRUE(region.Allocate(16, &ref).ok());
    return list.Push(region, ref, ref, 1, /*exclusive=*/true);
  };
  std::vector<int> cuts, tails;
  for (int i = 1; i <= 250; ++i) {
    const unsigned marks = push();
    if (marks & WriteList::kCut) cuts.push_back(i);
    if (marks & WriteList::kTail) tails.push_back(i);
  }
  EXPECT_EQ(cuts, (std::vector<int>{100, 200}));
  EXPECT_TRUE(tails.empty());
  list.ArmTail(7);  // at 257
  cuts.clear();
  for (int i = 251; i <= 320; ++i) {
    const unsigned marks = push();
    if (marks & WriteList::kCut) cuts.push_back(i);
    if (marks & WriteList::kTail) tails.push_back(i);
  }
  EXPECT_EQ(tails, (std::vector<int>{257})) << "once, until armed again";
  EXPECT_EQ(cuts, (std::vector<int>{300}));
  list.ArmTail(80);  // at 400, with the cut at 400: both at once
  unsigned both = 0;
  for (int i = 321; i <= 400; ++i) both = push();
  EXPECT_EQ(both, WriteList::kCut | WriteList::kTail);
  EXPECT_EQ(list.Count(), 400u);
}

}  // namespace
}  // namespace memrep::runs
