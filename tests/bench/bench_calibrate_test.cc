// memrep_bench --calibrate_auto: what it prints is what memrep.Auto's prior
// option takes, with each figure in its column.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "auto/cost_book.h"
#include "calibrate.h"
#include "memrep/memtable.h"

namespace memrep::bench {
namespace {

std::string PriorLine(const std::string& printed) {
  const size_t at = printed.find("prior=");
  if (at == std::string::npos) return "";
  return printed.substr(at + 6, printed.find('\n', at) - at - 6);
}

TEST(Calibrate, ThePrintedPriorIsWhatAutoTakesWithEachFigureInItsColumn) {
  const std::vector<CalibrationColumn>& columns = CalibrationColumns();
  ASSERT_EQ(columns.size(), auto_rep::kTableOps);
  CalibratedRep trie{"memrep.Trie", {}};
  for (size_t i = 0; i < columns.size(); ++i) trie.ns.push_back(100.0 * (i + 1));
  CalibratedRep vector{"memrep.Vector", {}};
  for (size_t i = 0; i < columns.size(); ++i) vector.ns.push_back(i == 3 ? -1 : 7.0 + i);
  const std::string printed = FormatCalibration({trie, vector});
  const std::string prior = PriorLine(printed);
  ASSERT_FALSE(prior.empty()) << printed;
  std::vector<auto_rep::RepCosts> parsed;
  ASSERT_TRUE(auto_rep::ParsePrior(prior, &parsed).ok()) << prior;
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].rep, "memrep.Trie");
  for (size_t i = 0; i < columns.size(); ++i) {
    EXPECT_DOUBLE_EQ(parsed[0].ns[i], 100.0 * (i + 1)) << columns[i].column;
  }
  // A figure the rep could not measure (the vector skips gets on a mutable
  // rep) is the built-in table's, marked in the table.
  const auto_rep::Prior builtin("");
  EXPECT_DOUBLE_EQ(parsed[1].ns[3], builtin.Of("memrep.Vector")[3]);
  EXPECT_DOUBLE_EQ(parsed[1].ns[4], 11.0);
  EXPECT_NE(printed.find('*'), std::string::npos);
  // And memrep.Auto opens with it.
  MemTableOptions options;
  options.rep = "id=memrep.Auto; prior=" + prior;
  std::unique_ptr<MemTable> table;
  const Status s = MemTable::Open(options, &table);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(Calibrate, MeasuresEveryOneOfMemrepsOwnRepsButAuto) {
  const std::vector<std::string> reps = CalibrationReps();
  EXPECT_GE(reps.size(), 4u);
  for (const std::string& rep : reps) EXPECT_NE(rep.find_first_not_of(' '), std::string::npos);
  for (const char* name : {"auto", "memrep.Auto", "skip_list"}) {
    EXPECT_EQ(std::find(reps.begin(), reps.end(), name), reps.end()) << name;
  }
}

}  // namespace
}  // namespace memrep::bench
