// The rep contract (include/memrep/rep.h), checked against a model (an
// ordered map of entries) for every registered rep, with its default options
// and each of its conformance_options strings, under the bytewise order, its
// reverse and (where the rep's traits allow) a custom comparator, through
// both faces:
//   rows:  Allocate + Insert, GetRows, RepIterator::row (the RocksDB face);
//          the rows handed back must be the very rows that were written
//   views: Add, Get, RepIterator::entry (the standalone face); contents only
// What a rep's traits say it does not do (detect duplicates, take concurrent
// inserts) is not asked of it; nothing here knows a rep by its name.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <thread>

#include "concurrency/background_pool.h"
#include "format/key_order.h"
#include "memory/arena.h"
#include "memrep/registry.h"
#include "registry/registry.h"
#include "test_util.h"

namespace memrep::testing {
namespace {

// Orders keys backwards through a virtual call: the custom-comparator path
// (no prefixes).
class CustomReverse final : public UserKeyComparator {
 public:
  const char* Name() const override { return "test.CustomReverse"; }
  int Compare(std::string_view a, std::string_view b) const override {
    return BytewiseComparator()->Compare(b, a);
  }
};
const CustomReverse kCustomReverse;

enum class Face { kRows, kViews };

struct Param {
  std::string spec;  // an options string
  std::string label;
  RepTraits traits;
  const UserKeyComparator* comparator;
  Face face;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.spec << " / " << p.comparator->Name() << " / "
      << (p.face == Face::kRows ? "rows" : "views");
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  std::string name = info.param.label;
  name += info.param.comparator == BytewiseComparator()          ? "_Bytewise"
          : info.param.comparator == ReverseBytewiseComparator() ? "_Reverse"
                                                                 : "_Custom";
  name += info.param.face == Face::kRows ? "_Rows" : "_Views";
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return name;
}

std::vector<Param> AllParams() {
  std::vector<Param> params;
  for (const registry::Registration* rep : registry::All()) {
    std::vector<std::string> specs = {rep->name};
    for (const std::string& options : rep->conformance_options) {
      specs.push_back("id=" + rep->name + ";" + options);
    }
    std::vector<const UserKeyComparator*> comparators = {BytewiseComparator(),
                                                         ReverseBytewiseComparator()};
    if (rep->traits.comparators != RepTraits::Comparators::kBytewise) {
      comparators.push_back(&kCustomReverse);
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      for (const UserKeyComparator* c : comparators) {
        for (Face face : {Face::kRows, Face::kViews}) {
          params.push_back({specs[i], rep->name + "_" + std::to_string(i), rep->traits, c, face});
        }
      }
    }
  }
  return params;
}

// What the model knows of an entry.
struct ModelEntry {
  uint8_t type;
  std::string value;
  const char* row;  // the rows face: the row written
};

class RepConformance : public ::testing::TestWithParam<Param> {
 protected:
  RepConformance() : model_(ModelOrder{GetParam().comparator}) {
    RepSpec spec;
    Status s = RepSpec::Parse(GetParam().spec, &spec);
    EXPECT_TRUE(s.ok()) << s.ToString();
    RepContext context;
    context.allocator = &arena_;
    context.comparator = GetParam().comparator;
    context.rows = rows();
    s = spec.NewRep(context, &rep_);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }

  bool rows() const { return GetParam().face == Face::kRows; }
  const RepTraits& traits() const { return GetParam().traits; }
  const UserKeyComparator* cmp() const { return GetParam().comparator; }

  // Inserts one entry through the face under test, and into the model; the
  // rep's duplicate answer must match the model's. A duplicate is attempted
  // only with a rep whose traits say it finds every one.
  void Add(const std::string& key, SequenceNumber seq, uint8_t type = 1,
           const std::string& value = "v") {
    const bool expect_new = model_.count(ModelKey{key, seq}) == 0;
    if (!expect_new && traits().duplicates != RepTraits::Duplicates::kAll) {
      return;  // not the caller's to ask
    }
    const std::string stored = value + key;  // outlives the view below
    const EntryView entry{key, PackTag(seq, type), stored};
    const char* row = nullptr;
    bool inserted;
    if (rows()) {
      KeyHandle h = MakeEntry(rep_.get(), key, seq, type, stored, &row);
      inserted = rep_->Insert(h);
    } else {
      Status s = rep_->Add(entry, false);
      ASSERT_TRUE(s.ok() || s.IsAlreadyExists()) << s.ToString();
      inserted = s.ok();
    }
    ASSERT_EQ(inserted, expect_new) << key << "@" << seq;
    if (expect_new) model_[ModelKey{key, seq}] = ModelEntry{type, stored, row};
  }

  // Random multi-version content: a small key space, so keys get many versions
  // and duplicates are attempted (where the rep detects them).
  void FillRandom(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    for (int i = 0; i < n; ++i) {
      Add(NumberKey(rng() % 200, 3 + rng() % 3), rng() % 50, static_cast<uint8_t>(rng() % 3));
    }
  }

  ModelKey KeyAt(const RepIterator& it) const {
    const EntryView e = it.entry();
    return ModelKey{std::string(e.user_key), e.sequence()};
  }

  // The entry under `it` is the model's `m`: same key and sequence, same type
  // and value, and in the rows face the very row that was written.
  void ExpectEntry(const RepIterator& it, const Model<ModelEntry>::value_type& m) const {
    const EntryView e = it.entry();
    EXPECT_EQ(e.user_key, m.first.user_key);
    EXPECT_EQ(e.sequence(), m.first.seq);
    EXPECT_EQ(e.type(), m.second.type);
    EXPECT_EQ(e.value, m.second.value);
    if (rows()) {
      EXPECT_EQ(it.row(), m.second.row) << "the iterator must hand out the stored row";
    }
  }

  void ExpectSameKey(const ModelKey& a, const ModelKey& b) const {
    EXPECT_EQ(a.user_key, b.user_key);
    EXPECT_EQ(a.seq, b.seq);
  }

  // Every entry, forward and backward, against the model.
  void ExpectFullScansMatch() {
    auto it = rep_->NewIterator();
    auto m = model_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model_.end());
      ExpectEntry(*it, *m);
    }
    EXPECT_EQ(m, model_.end());
    EXPECT_TRUE(it->status().ok());
    auto r = model_.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_NE(r, model_.rend());
      ExpectEntry(*it, *r);
    }
    EXPECT_EQ(r, model_.rend());
  }

  // The keys Get hands out from `target` on, while the user key matches.
  std::vector<ModelKey> GetVersions(const ModelKey& target) const {
    struct State {
      const UserKeyComparator* cmp;
      std::string key;
      std::vector<ModelKey> seen;
    } state{cmp(), target.user_key, {}};
    const std::string ikey = InternalKey(target.user_key, target.seq);
    auto visit = [](State* s, const EntryView& e) {
      if (s->cmp->Compare(e.user_key, s->key) != 0) return false;
      s->seen.push_back(ModelKey{std::string(e.user_key), e.sequence()});
      return true;
    };
    if (rows()) {
      rep_->GetRows(ikey, &state, [](void* arg, const char* row) {
        return decltype(visit)()(static_cast<State*>(arg), DecodeRow(row));
      });
    } else {
      rep_->Get(ikey, &state, [](void* arg, const EntryView& e) {
        return decltype(visit)()(static_cast<State*>(arg), e);
      });
    }
    return state.seen;
  }

  void Drain() { concurrency::BackgroundPool::Shared().Drain(); }

  // NumEntries and a full scan both count `expected` entries, the scan in
  // strictly ascending order (no entry twice).
  void ExpectStrictlyOrderedCount(uint64_t expected) {
    EXPECT_EQ(rep_->NumEntries(), expected);
    auto it = rep_->NewIterator();
    uint64_t n = 0;
    ModelOrder less{cmp()};
    ModelKey prev;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      const ModelKey k = KeyAt(*it);
      if (n > 0) {
        ASSERT_TRUE(less(prev, k));
      }
      prev = k;
    }
    EXPECT_EQ(n, expected);
  }

  memory::Arena arena_;
  std::unique_ptr<Rep> rep_;
  Model<ModelEntry> model_;
};

TEST_P(RepConformance, EmptyRep) {
  auto it = rep_->NewIterator();
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek(InternalKey("a", 5));
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(InternalKey("a", 5));
  EXPECT_FALSE(it->Valid());
  EXPECT_EQ(rep_->NumEntries(), 0u);
  EXPECT_TRUE(GetVersions(ModelKey{"a", 5}).empty());
  if (rows()) {
    EXPECT_FALSE(rep_->Contains(InternalKey("a", 5)));
  }
}

// Suites for what only some reps do, or only one face has: each runs the
// params whose traits or face call for it (no test is skipped).
class DuplicateConformance : public RepConformance {};     // traits: detects_duplicates()
class AllDuplicateConformance : public RepConformance {};  // traits: duplicates == kAll
class ConcurrentConformance : public RepConformance {};    // traits: concurrent_insert
class RowConformance : public RepConformance {};           // the rows face
class ViewConformance : public RepConformance {};          // the views face
// traits: concurrent_insert, and the views face (the rows face has no
// batches: RocksDB inserts a batch row by row)
class ConcurrentViewConformance : public RepConformance {};

TEST_P(DuplicateConformance, DuplicateUserKeyAndSequenceIsRefusedWhateverTheType) {
  Add("key", 7, static_cast<uint8_t>(ValueType::kValue));
  if (rows()) {
    KeyHandle dup = MakeEntry(rep_.get(), "key", 7, static_cast<uint8_t>(ValueType::kMerge), "x");
    EXPECT_FALSE(rep_->Insert(dup));
    KeyHandle dup2 =
        MakeEntry(rep_.get(), "key", 7, static_cast<uint8_t>(ValueType::kDeletion), "");
    EXPECT_FALSE(rep_->InsertConcurrently(dup2));
  } else {
    Status s = rep_->Add(EntryView::Of("key", 7, ValueType::kMerge, "x"), false);
    EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
    s = rep_->Add(EntryView::Of("key", 7, ValueType::kDeletion, ""), traits().concurrent_insert);
    EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  }
  EXPECT_EQ(rep_->NumEntries(), 1u);
  Add("key", 8);
  EXPECT_EQ(rep_->NumEntries(), 2u);
  ExpectFullScansMatch();
}

// RocksDB's own check of the contract (DBMemTableTest.DuplicateSeq): a
// duplicate is refused also after a later sequence, whatever its type.
TEST_P(DuplicateConformance, ADuplicateIsRefusedAfterAnInsertAtALaterSequence) {
  const auto insert = [&](const std::string& key, SequenceNumber seq, ValueType type) {
    if (rows()) {
      return rep_->Insert(MakeEntry(rep_.get(), key, seq, static_cast<uint8_t>(type), "v"));
    }
    const Status s = rep_->Add(EntryView::Of(key, seq, type, "v"), false);
    EXPECT_TRUE(s.ok() || s.IsAlreadyExists()) << s.ToString();
    return s.ok();
  };
  constexpr SequenceNumber kSeq = 123;
  EXPECT_TRUE(insert("key", kSeq, ValueType::kValue));
  EXPECT_FALSE(insert("key", kSeq, ValueType::kValue));
  EXPECT_FALSE(insert("key", kSeq, ValueType::kMerge));
  EXPECT_TRUE(insert("key", kSeq + 1, ValueType::kMerge));
  EXPECT_FALSE(insert("key", kSeq, ValueType::kDeletion));
  EXPECT_FALSE(insert("key", kSeq, static_cast<ValueType>(0x7)));  // RocksDB's SingleDeletion
  EXPECT_TRUE(insert("other", kSeq, ValueType::kValue)) << "an earlier sequence, a new key";
  EXPECT_FALSE(insert("other", kSeq, ValueType::kValue));
  // Many versions of one key, every tenth insert a repeat of the one before.
  SequenceNumber seq = 1000;
  for (int i = 0; i < 3000; ++i) {
    const bool repeat = i % 10 == 1;
    if (!repeat) ++seq;
    EXPECT_EQ(insert("foo", seq, ValueType::kValue), !repeat) << i;
  }
  EXPECT_EQ(rep_->NumEntries(), 3u + 2700u);
  if (rows()) return;
  // A batch whose sequences go back, with a repeat inside it.
  const std::vector<EntryView> batch = {EntryView::Of("b", 50, ValueType::kValue, "x"),
                                        EntryView::Of("b", 40, ValueType::kValue, "x"),
                                        EntryView::Of("b", 50, ValueType::kValue, "y")};
  const Status s = rep_->AddBatch(batch, false);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_NE(s.message().find("batch record 2"), std::string::npos) << s.ToString();
  EXPECT_EQ(rep_->NumEntries(), 3u + 2700u + 2u);
}

TEST_P(RepConformance, RandomContentMatchesModel) {
  FillRandom(3000, 1);
  EXPECT_EQ(rep_->NumEntries(), model_.size());
  ExpectFullScansMatch();
}

TEST_P(ViewConformance, BatchesLandInOrder) {
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) keys.push_back(NumberKey(i * 7 % 50));
  std::vector<EntryView> batch;
  for (int i = 0; i < 50; ++i) {
    batch.push_back(EntryView::Of(keys[i], 100 + i, ValueType::kValue, keys[i]));
  }
  ASSERT_TRUE(rep_->AddBatch(batch, false).ok());
  for (int i = 0; i < 50; ++i)
    model_[ModelKey{keys[i], 100u + i}] = ModelEntry{1, keys[i], nullptr};
  ExpectFullScansMatch();
}

// MultiGet answers each key as Get would, in index order, with each key's
// callback stopping only that key.
TEST_P(ViewConformance, MultiGetAnswersEachKeyAsGetDoes) {
  FillRandom(3000, 6);
  std::mt19937 rng(11);
  std::vector<ModelKey> targets;
  for (int i = 0; i < 500; ++i) {
    targets.push_back(ModelKey{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55});
  }
  std::vector<std::string> ikeys;
  for (const ModelKey& t : targets) ikeys.push_back(InternalKey(t.user_key, t.seq));
  const std::vector<std::string_view> views(ikeys.begin(), ikeys.end());
  struct State {
    const UserKeyComparator* cmp;
    const std::vector<ModelKey>* targets;
    std::vector<std::vector<ModelKey>> seen;
    size_t last_index = 0;
    bool in_order = true;
  } state{cmp(), &targets, std::vector<std::vector<ModelKey>>(targets.size())};
  rep_->MultiGet(views, &state, [](void* arg, size_t i, const EntryView& e) {
    auto* s = static_cast<State*>(arg);
    if (i < s->last_index) s->in_order = false;
    s->last_index = i;
    if (s->cmp->Compare(e.user_key, (*s->targets)[i].user_key) != 0) return false;
    s->seen[i].push_back(ModelKey{std::string(e.user_key), e.sequence()});
    return true;
  });
  EXPECT_TRUE(state.in_order);
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::vector<ModelKey> expected = GetVersions(targets[i]);
    ASSERT_EQ(state.seen[i].size(), expected.size()) << i;
    for (size_t j = 0; j < expected.size(); ++j) ExpectSameKey(state.seen[i][j], expected[j]);
  }
  // A callback that stops at once sees one entry of each key that has a
  // version at or below its sequence, and at most one of the others (the
  // next key's, which a rep need not show).
  struct Count {
    std::vector<int> calls;
  } count{std::vector<int>(targets.size(), 0)};
  rep_->MultiGet(views, &count, [](void* arg, size_t i, const EntryView&) {
    ++static_cast<Count*>(arg)->calls[i];
    return false;
  });
  for (size_t i = 0; i < targets.size(); ++i) {
    if (state.seen[i].empty()) {
      EXPECT_LE(count.calls[i], 1) << i;
    } else {
      EXPECT_EQ(count.calls[i], 1) << i;
    }
  }
  rep_->MultiGet({}, &count, [](void*, size_t, const EntryView&) {
    ADD_FAILURE() << "no key, no call";
    return false;
  });
}

TEST_P(DuplicateConformance, ABatchStopsAtARefusedRecordAndKeepsTheOnesBefore) {
  if (rows()) {
    // The rows face has no batches: RocksDB inserts a batch row by row.
    Add("k", 1);
    EXPECT_FALSE(rep_->Insert(MakeEntry(rep_.get(), "k", 1, 1, "again")));
    ExpectFullScansMatch();
    return;
  }
  // One sequence for the whole batch, as RocksDB's write-prepared batches.
  const std::vector<EntryView> clash = {EntryView::Of("new", 9, ValueType::kValue, "newnew"),
                                        EntryView::Of("mid", 9, ValueType::kDeletion, ""),
                                        EntryView::Of("new", 9, ValueType::kMerge, "again"),
                                        EntryView::Of("never", 9, ValueType::kValue, "x")};
  Status s = rep_->AddBatch(clash, false);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_NE(s.message().find("batch record 2"), std::string::npos) << s.ToString();
  model_[ModelKey{"new", 9}] = ModelEntry{1, "newnew", nullptr};
  model_[ModelKey{"mid", 9}] = ModelEntry{0, "", nullptr};
  ExpectFullScansMatch();
}

TEST_P(DuplicateConformance, ARepeatedKeyIsFoundPerRepAcrossInterleavedReps) {
  // A batch over two column families writes both memtables at one sequence:
  // the same key in the other rep is no duplicate, a repeat in either is.
  RepSpec spec;
  ASSERT_TRUE(RepSpec::Parse(GetParam().spec, &spec).ok());
  RepContext context;
  context.allocator = &arena_;
  context.comparator = GetParam().comparator;
  context.rows = rows();
  std::unique_ptr<Rep> other;
  ASSERT_TRUE(spec.NewRep(context, &other).ok());
  auto put = [&](Rep* rep, const std::string& key) {
    if (rows()) return rep->Insert(MakeEntry(rep, key, 40, 1, "v"));
    return rep->Add(EntryView::Of(key, 40, ValueType::kValue, "v"), false).ok();
  };
  Add("a", 40);
  EXPECT_TRUE(put(other.get(), "a"));
  Add("b", 40);
  EXPECT_TRUE(put(other.get(), "b"));
  EXPECT_FALSE(put(rep_.get(), "a"));
  EXPECT_FALSE(put(other.get(), "b"));
  EXPECT_FALSE(put(rep_.get(), "b"));
  EXPECT_TRUE(put(other.get(), "c"));
  Add("c", 40);
  EXPECT_EQ(other->NumEntries(), 3u);
  ExpectFullScansMatch();
}

TEST_P(AllDuplicateConformance, ADuplicateIsRefusedLongAfterItsOriginal) {
  Add("old", 5);
  if (rows()) {
    Add("other", 6);
    EXPECT_FALSE(rep_->Insert(MakeEntry(rep_.get(), "old", 5, 1, "again")));
    ExpectFullScansMatch();
    return;
  }
  const std::vector<EntryView> clash = {EntryView::Of("new", 1, ValueType::kValue, "newnew"),
                                        EntryView::Of("old", 5, ValueType::kValue, "x"),
                                        EntryView::Of("never", 1, ValueType::kValue, "x")};
  Status s = rep_->AddBatch(clash, false);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_NE(s.message().find("batch record 1"), std::string::npos) << s.ToString();
  model_[ModelKey{"new", 1}] = ModelEntry{1, "newnew", nullptr};
  ExpectFullScansMatch();
}

TEST_P(RepConformance, SeekAndSeekForPrevMatchModel) {
  FillRandom(2000, 2);
  std::mt19937 rng(3);
  auto it = rep_->NewIterator();
  for (int i = 0; i < 2000; ++i) {
    const ModelKey target{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
    const std::string ikey = InternalKey(target.user_key, target.seq);
    it->Seek(ikey);
    auto lb = model_.lower_bound(target);
    if (lb == model_.end()) {
      EXPECT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ExpectEntry(*it, *lb);
    }
    it->SeekForPrev(ikey);
    auto ub = model_.upper_bound(target);
    if (ub == model_.begin()) {
      EXPECT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ExpectEntry(*it, *std::prev(ub));
    }
  }
}

TEST_P(RepConformance, RandomWalkWithDirectionChanges) {
  FillRandom(2000, 4);
  std::mt19937 rng(5);
  auto it = rep_->NewIterator();
  auto m = model_.end();
  for (int step = 0; step < 20000; ++step) {
    const int op = rng() % 10;
    if (op == 0 || m == model_.end()) {
      const ModelKey target{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
      it->Seek(InternalKey(target.user_key, target.seq));
      m = model_.lower_bound(target);
    } else if (op < 6) {
      it->Next();
      ++m;
    } else {
      it->Prev();
      m = m == model_.begin() ? model_.end() : std::prev(m);
    }
    ASSERT_EQ(it->Valid(), m != model_.end()) << "step " << step;
    if (it->Valid()) ExpectSameKey(KeyAt(*it), m->first);
  }
}

TEST_P(RepConformance, GetVisitsVersionsNewestFirstFromTheSnapshot) {
  FillRandom(3000, 6);
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const ModelKey target{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
    // The callback keeps going while the user key matches, like RocksDB's
    // SaveValue does for merge operands.
    const std::vector<ModelKey> seen = GetVersions(target);
    std::vector<ModelKey> expected;
    for (auto m = model_.lower_bound(target);
         m != model_.end() && m->first.user_key == target.user_key; ++m) {
      expected.push_back(m->first);
    }
    ASSERT_EQ(seen.size(), expected.size()) << target.user_key << "@" << target.seq;
    for (size_t j = 0; j < expected.size(); ++j) ExpectSameKey(seen[j], expected[j]);
  }
}

TEST_P(RepConformance, GetStopsWhenTheCallbackSaysSo) {
  Add("k", 3);
  Add("k", 2);
  Add("k", 1);
  int calls = 0;
  if (rows()) {
    rep_->GetRows(InternalKey("k", 10), &calls, [](void* arg, const char*) {
      ++*static_cast<int*>(arg);
      return false;
    });
  } else {
    rep_->Get(InternalKey("k", 10), &calls, [](void* arg, const EntryView&) {
      ++*static_cast<int*>(arg);
      return false;
    });
  }
  EXPECT_EQ(calls, 1);
}

TEST_P(RowConformance, ContainsIsExact) {
  FillRandom(1000, 8);
  std::mt19937 rng(9);
  for (int i = 0; i < 2000; ++i) {
    const ModelKey k{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
    EXPECT_EQ(rep_->Contains(InternalKey(k.user_key, k.seq, 1)), model_.count(k) == 1)
        << k.user_key << "@" << k.seq;
  }
}

// ProbedRows (RocksDB's per-key checksums): stored rows of other keys only;
// and a hash probe hands on a row whose key bytes changed in place, which
// its GetRows would skip.
TEST_P(RowConformance, ProbedRowsAreStoredRowsOfOtherKeys) {
  for (int i = 0; i < 300; ++i) Add(NumberKey(i), 1 + i % 3);
  std::set<const char*> stored;
  for (const auto& [key, entry] : model_) stored.insert(entry.row);
  struct Seen {
    std::vector<const char*> rows;
  };
  const auto probed = [&](const std::string& key) {
    Seen seen;
    rep_->ProbedRows(InternalKey(key, kMaxSequenceNumber), &seen, [](void* arg, const char* row) {
      static_cast<Seen*>(arg)->rows.push_back(row);
      return true;
    });
    return seen.rows;
  };
  for (int i = 0; i < 320; ++i) {
    const std::string key = NumberKey(i);
    for (const char* row : probed(key)) {
      EXPECT_EQ(stored.count(row), 1u) << key << ": not a stored row";
      EXPECT_NE(DecodeRow(row).user_key, key) << key << ": a row of the key itself";
    }
  }
  if (traits().point_read_while_mutable != RepTraits::Cost::kConstant) return;
  const std::string victim = NumberKey(150);
  const char* row = model_.lower_bound(ModelKey{victim, kMaxSequenceNumber})->second.row;
  ASSERT_EQ(DecodeRow(row).user_key, victim);
  const_cast<char*>(DecodeRow(row).user_key.data())[victim.size() - 1] ^= 0x40;
  const std::vector<const char*> rows = probed(victim);
  EXPECT_NE(std::find(rows.begin(), rows.end(), row), rows.end())
      << "a hash probe of " << victim << " must hand on its row whose key changed";
  EXPECT_TRUE(GetVersions(ModelKey{victim, kMaxSequenceNumber}).empty());
}

// DisorderNearSeek (RocksDB's paranoid checks): never a row of a rep in
// order; and with a key moved out of order in place (as memory corruption
// would), a checked seek to its old place finds it: out of order near the
// landing place, the row landed on before the target, or the next step
// out of order (as RocksDB's checked iterator would see).
TEST_P(RowConformance, ACheckedSeekFindsAKeyMovedOutOfOrder) {
  for (int i = 0; i < 300; ++i) Add(NumberKey(i), 1 + i % 3);
  std::mt19937 rng(12);
  auto it = rep_->NewIterator();
  const char* before = nullptr;
  for (int i = 0; i < 400; ++i) {
    const std::string target = InternalKey(NumberKey(rng() % 320), rng() % 4);
    (i % 2 == 0) ? it->Seek(target) : it->SeekForPrev(target);
    ASSERT_EQ(it->DisorderNearSeek(&before), nullptr) << "in order, yet found out of order";
  }
  // Only with a rep's default options: the others cut rows into runs of a
  // few rows, where the moved key can become the first row of its run,
  // which leaves every run sorted, and only a scan (which checks every
  // step) can tell.
  if (GetParam().spec.find(';') != std::string::npos) return;
  const std::string victim = NumberKey(150);
  const char* row = model_.lower_bound(ModelKey{victim, kMaxSequenceNumber})->second.row;
  ASSERT_EQ(DecodeRow(row).user_key, victim);
  it->SeekToFirst();  // as a long-lived memtable, sorted before the change
  // "k..." becomes "K...", before every other key (in bytewise order).
  const_cast<char*>(DecodeRow(row).user_key.data())[0] ^= 0x20;
  const std::string target = InternalKey(victim, kMaxSequenceNumber);
  it->Seek(target);
  const format::KeyOrder order(cmp());
  bool found = it->DisorderNearSeek(&before) != nullptr ||
               (it->Valid() && order.CompareRowToKey(it->row(), target) < 0);
  if (!found && it->Valid()) {
    // Landed on the row (a walk by the key's old bytes): the next checked
    // step finds the order broken.
    const char* landed = it->row();
    it->Next();
    found = it->Valid() && order.CompareRows(landed, it->row()) >= 0;
  }
  EXPECT_TRUE(found) << "a checked Seek(" << victim << ") and Next stepped past it unseen";
}

TEST_P(RepConformance, IteratorSeesEverythingInsertedBeforeIt) {
  std::mt19937 rng(10);
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 37; ++i) Add(NumberKey(rng() % 500), rng() % 1000);
    ExpectFullScansMatch();
  }
}

// The contract's point 3: RocksDB's Iterator::Refresh and tailing iterators
// position an existing memtable iterator again and expect what was written
// since; Next alone may stay on what the iterator saw.
TEST_P(RepConformance, ARepositionedIteratorSeesInsertsMadeSinceItWasCreated) {
  Add("b", 1);
  auto it = rep_->NewIterator();
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  Add("d", 2);
  Add("b", 3);
  it->Seek(InternalKey("b", kMaxSequenceNumber));
  ASSERT_TRUE(it->Valid());
  ExpectSameKey(KeyAt(*it), model_.lower_bound(ModelKey{"b", kMaxSequenceNumber})->first);
  Add("f", 4);
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  ExpectSameKey(KeyAt(*it), model_.rbegin()->first);
  Add("0", 5);
  Add("z", 6);
  it->SeekForPrev(InternalKey("0", 0));
  ASSERT_TRUE(it->Valid());
  if (cmp()->Compare("0", "z") < 0) {
    EXPECT_EQ(it->entry().user_key, "0");
  }
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  ExpectSameKey(KeyAt(*it), model_.begin()->first);
  size_t n = 0;
  for (; it->Valid(); it->Next()) ++n;
  EXPECT_EQ(n, model_.size()) << "a full scan after SeekToFirst sees every insert before it";
}

TEST_P(RepConformance, OldIteratorStaysValidAndOrderedWhileInsertsContinue) {
  FillRandom(500, 11);
  auto it = rep_->NewIterator();
  it->SeekToFirst();
  const Model<ModelEntry> before = model_;
  FillRandom(1500, 12);  // after the iterator was positioned
  // Next moves in strict order; a new scan sees at least what was there.
  std::set<std::pair<std::string, SequenceNumber>> seen;
  ModelOrder less{cmp()};
  ModelKey prev;
  bool first = true;
  for (; it->Valid(); it->Next()) {
    const ModelKey k = KeyAt(*it);
    if (!first) {
      ASSERT_TRUE(less(prev, k));
    }
    prev = k;
    first = false;
  }
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const ModelKey k = KeyAt(*it);
    seen.insert({k.user_key, k.seq});
  }
  for (const auto& [k, e] : before) EXPECT_EQ(seen.count({k.user_key, k.seq}), 1u);
}

TEST_P(RepConformance, FrozenRepReadsTheSame) {
  FillRandom(3000, 13);
  rep_->Freeze();
  EXPECT_TRUE(rep_->frozen());
  ExpectFullScansMatch();
  Drain();  // whatever the rep does after freezing
  ExpectFullScansMatch();
}

TEST_P(RepConformance, MemoryUsageNeverGrowsOnceFrozen) {
  // RocksDB records a memtable's usage as it turns immutable (just before
  // MarkReadOnly) and requires that it never grows after.
  FillRandom(3000, 15);
  auto early = rep_->NewIterator();
  early->SeekToFirst();
  const size_t recorded = rep_->MemoryUsage();
  const bool nearly_full = rep_->NearlyFull();
  rep_->Freeze();
  for (int i = 0; i < 5; ++i) {
    auto it = rep_->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
    }
    EXPECT_LE(rep_->MemoryUsage(), recorded);
    Drain();
    EXPECT_LE(rep_->MemoryUsage(), recorded);
    EXPECT_EQ(rep_->NearlyFull(), nearly_full);
  }
}

TEST_P(RepConformance, StatisticsAndSampling) {
  const size_t empty_usage = rep_->MemoryUsage();
  FillRandom(3000, 14);
  rep_->Freeze();
  Drain();
  EXPECT_EQ(rep_->NumEntries(), model_.size());
  EXPECT_GE(rep_->MemoryUsage(), empty_usage);

  // The whole range holds every entry; an empty range none.
  std::string lo = InternalKey(NumberKey(0, 3), kMaxSequenceNumber);
  std::string hi = InternalKey(NumberKey(99999, 5), 0);
  if (cmp()->Compare("a", "b") > 0) {  // a reverse order: the biggest key comes first
    lo = InternalKey(NumberKey(99999, 5), kMaxSequenceNumber);
    hi = InternalKey(NumberKey(0, 3), 0);
  }
  const uint64_t all = rep_->ApproximateNumEntries(lo, hi);
  EXPECT_LE(all, model_.size() + model_.size() / 2);
  EXPECT_GE(all, model_.size() / 2);
  EXPECT_EQ(rep_->ApproximateNumEntries(hi, hi), 0u);
}

TEST_P(RowConformance, RandomSamplesAreDistinctStoredRows) {
  FillRandom(3000, 14);
  rep_->Freeze();
  Drain();
  std::vector<const char*> sample;
  ASSERT_TRUE(rep_->RandomSample(100, 42, &sample).ok());
  ASSERT_EQ(sample.size(), 100u);
  std::set<const char*> distinct(sample.begin(), sample.end());
  EXPECT_EQ(distinct.size(), 100u);
  std::set<const char*> stored;
  for (const auto& [k, e] : model_) stored.insert(e.row);
  for (const char* e : sample) EXPECT_EQ(stored.count(e), 1u);
  sample.clear();
  ASSERT_TRUE(rep_->RandomSample(model_.size() + 10, 42, &sample).ok());
  EXPECT_EQ(sample.size(), model_.size());
}

TEST_P(ConcurrentConformance, ConcurrentInsertsAllLand) {
  constexpr int kThreads = 4, kPerThread = 3000;
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  const bool dups = traits().duplicates == RepTraits::Duplicates::kAll;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Every thread writes the same keys with its own sequences, plus (for
        // a rep that detects duplicates) one contested (key, sequence) per key
        // that only one thread may win.
        const std::string key = NumberKey(i);
        bool ok;
        if (rows()) {
          ok = rep_->InsertConcurrently(MakeEntry(rep_.get(), key, 1 + t, 1, "v"));
        } else {
          ok = rep_->Add(EntryView::Of(key, 1 + t, ValueType::kValue, "v"), true).ok();
        }
        if (!ok) ++refused;
        if (!dups) continue;
        if (rows()) {
          ok = rep_->InsertConcurrently(MakeEntry(rep_.get(), key, 100, 1, "c"));
        } else {
          ok = rep_->Add(EntryView::Of(key, 100, ValueType::kValue, "c"), true).ok();
        }
        if (!ok) ++refused;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(refused.load(), dups ? (kThreads - 1) * kPerThread : 0);
  const uint64_t expected = (kThreads + (dups ? 1 : 0)) * static_cast<uint64_t>(kPerThread);
  ExpectStrictlyOrderedCount(expected);
}

// Batches from several threads at once: every record of every batch lands,
// once, in order; a batch with a record another batch already stored stops
// there, keeping the records before it (views face: AddBatch).
TEST_P(ConcurrentViewConformance, ConcurrentBatchesAllLand) {
  // Fewer batches under ThreadSanitizer: with 16 buckets (the sorted hash's
  // long-chain configuration) every insert walks its chain, and TSan makes
  // those loads about a hundred times dearer (30 s a test at 40 batches).
  constexpr int kThreads = 4, kBatches = kThreadSanitizer ? 12 : 40, kPerBatch = 150;
  const bool dups = traits().duplicates == RepTraits::Duplicates::kAll;
  std::vector<std::thread> threads;
  std::atomic<int> stopped{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> keys(kPerBatch);
      std::vector<EntryView> batch(kPerBatch);
      for (int b = 0; b < kBatches; ++b) {
        for (int i = 0; i < kPerBatch; ++i) {
          keys[i] = NumberKey(b * kPerBatch + i);
          // Its own sequence per thread: no two threads write the same record.
          batch[i] = EntryView::Of(keys[i], 1 + t, ValueType::kValue, keys[i]);
        }
        EXPECT_TRUE(rep_->AddBatch(batch, true).ok());
        if (!dups) continue;
        // One contested record per batch, at its middle: (key, 100), which
        // every thread writes; only the first batch to get there stores it.
        std::vector<EntryView> contested(batch.begin(), batch.begin() + kPerBatch / 2 + 1);
        for (int i = 0; i < kPerBatch / 2; ++i) {
          contested[i] = EntryView::Of(keys[i], 200 + t, ValueType::kMerge, "m");
        }
        contested[kPerBatch / 2] = EntryView::Of(keys[kPerBatch / 2], 100, ValueType::kValue, "c");
        if (!rep_->AddBatch(contested, true).ok()) ++stopped;
      }
    });
  }
  // Meanwhile a reader's MultiGets (the rep's pipelined lookups run against
  // the writers; TSan checks them): whatever a key shows is one of its
  // records, newest first.
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::thread reader([&] {
    std::vector<std::string> ikeys;
    for (int i = 0; i < 64; ++i) ikeys.push_back(InternalKey(NumberKey(i * 97 % 6000), 1000));
    const std::vector<std::string_view> views(ikeys.begin(), ikeys.end());
    struct Seen {
      const UserKeyComparator* cmp;
      const std::vector<std::string>* ikeys;
      std::vector<SequenceNumber> last;
      int wrong = 0;
    };
    while (!done.load(std::memory_order_acquire)) {
      Seen seen{cmp(), &ikeys, std::vector<SequenceNumber>(views.size(), kMaxSequenceNumber + 1)};
      rep_->MultiGet(views, &seen, [](void* arg, size_t i, const EntryView& e) {
        auto* s = static_cast<Seen*>(arg);
        const std::string_view user((*s->ikeys)[i].data(), (*s->ikeys)[i].size() - 8);
        if (s->cmp->Compare(e.user_key, user) != 0) return false;
        if (e.sequence() >= s->last[i]) ++s->wrong;  // versions newest first
        s->last[i] = e.sequence();
        return true;
      });
      wrong += seen.wrong;
    }
  });
  for (auto& th : threads) th.join();
  done.store(true, std::memory_order_release);
  reader.join();
  EXPECT_EQ(wrong.load(), 0);
  // Each thread's contested batch stops at its last record unless it won it.
  EXPECT_EQ(stopped.load(), dups ? (kThreads - 1) * kBatches : 0);
  const uint64_t per_thread = uint64_t{kBatches} * kPerBatch;
  const uint64_t expected = kThreads * per_thread +
                            (dups ? kThreads * uint64_t{kBatches} * (kPerBatch / 2) + kBatches : 0);
  ExpectStrictlyOrderedCount(expected);
}

template <typename Pred>
std::vector<Param> ParamsWhere(Pred pred) {
  std::vector<Param> params;
  for (const Param& p : AllParams()) {
    if (pred(p)) params.push_back(p);
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(AllReps, RepConformance, ::testing::ValuesIn(AllParams()), ParamName);
INSTANTIATE_TEST_SUITE_P(DetectingReps, DuplicateConformance,
                         ::testing::ValuesIn(ParamsWhere([](const Param& p) {
                           return p.traits.detects_duplicates();
                         })),
                         ParamName);
INSTANTIATE_TEST_SUITE_P(DetectingReps, AllDuplicateConformance,
                         ::testing::ValuesIn(ParamsWhere([](const Param& p) {
                           return p.traits.duplicates == RepTraits::Duplicates::kAll;
                         })),
                         ParamName);
INSTANTIATE_TEST_SUITE_P(ConcurrentReps, ConcurrentConformance,
                         ::testing::ValuesIn(ParamsWhere([](const Param& p) {
                           return p.traits.concurrent_insert;
                         })),
                         ParamName);
INSTANTIATE_TEST_SUITE_P(ConcurrentReps, ConcurrentViewConformance,
                         ::testing::ValuesIn(ParamsWhere([](const Param& p) {
                           return p.traits.concurrent_insert && p.face == Face::kViews;
                         })),
                         ParamName);
INSTANTIATE_TEST_SUITE_P(AllReps, RowConformance,
                         ::testing::ValuesIn(ParamsWhere([](const Param& p) {
                           return p.face == Face::kRows;
                         })),
                         ParamName);
INSTANTIATE_TEST_SUITE_P(AllReps, ViewConformance,
                         ::testing::ValuesIn(ParamsWhere([](const Param& p) {
                           return p.face == Face::kViews;
                         })),
                         ParamName);

// The suite runs every registered rep: memrep's own and the tests' examples.
TEST(RepConformanceCoverage, EveryRegisteredRepIsRun) {
  std::set<std::string> run;
  for (const Param& p : AllParams()) run.insert(p.spec.substr(0, p.spec.find(';')));
  for (const RepInfo& rep : ListReps()) {
    EXPECT_EQ(run.count(rep.name), 1u) << rep.name;
  }
  EXPECT_GE(ListReps().size(), 3u) << "memrep's reps and the two test maps";
}

}  // namespace
}  // namespace memrep::testing
