// MapRep: the smallest rep there is, a sorted std::map of rows under one
// mutex. It lives only in the tests, where it shows what a rep must do (the
// walk-through in docs/adding_a_rep.md) and gives the conformance suite a rep
// whose traits differ from the sorted hash rep's.
//
// It implements only the row functions of memrep::Rep: the view functions
// come from Rep's defaults, which encode a view into a row on Add and decode
// rows on Get, so it serves both faces.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <random>
#include <set>
#include <string>

#include "format/key_order.h"
#include "memrep/rep.h"
#include "registry/registry.h"

namespace memrep::testing {
namespace {

struct MapRepOptions {
  // Entries the rep takes before it answers Full (0: no limit); lets tests
  // fill a memtable in both faces.
  uint64_t max_entries = 0;
};

class MapRep final : public Rep {
 public:
  MapRep(const MapRepOptions& options, const RepContext& context)
      : options_(options), allocator_(context.allocator), order_(context.comparator) {}

  Status Allocate(size_t len, KeyHandle* handle, char** row) override {
    // relaxed: a count, not a publication.
    if (options_.max_entries != 0 &&
        allocated_.fetch_add(1, std::memory_order_relaxed) >= options_.max_entries) {
      return Status::Full("test.Map holds at most max_entries entries: switch memtables");
    }
    *row = allocator_->AllocateAligned(len);
    if (*row == nullptr) return Status::OutOfMemory("test.Map could not allocate a row");
    *handle = *row;  // the handle is the row itself
    return Status::OK();
  }
  bool Insert(KeyHandle handle) override {
    std::lock_guard<std::mutex> lock(mu_);
    return rows_.insert(static_cast<const char*>(handle)).second;
  }
  bool InsertConcurrently(KeyHandle handle) override { return Insert(handle); }

  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = rows_.lower_bound(internal_key); it != rows_.end(); ++it) {
      if (!callback(arg, *it)) return;
    }
  }
  bool Contains(std::string_view internal_key) const override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = rows_.lower_bound(internal_key);
    return it != rows_.end() && order_.CompareRowToKey(*it, internal_key) == 0;
  }
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const override {
    std::vector<const char*> all = Rows();
    std::shuffle(all.begin(), all.end(), std::mt19937_64(seed));
    if (all.size() > target) all.resize(target);
    out->insert(out->end(), all.begin(), all.end());
    return Status::OK();
  }

  std::unique_ptr<RepIterator> NewIterator() const override {
    return std::make_unique<Iterator>(this);
  }
  void Freeze() override { frozen_.store(true, std::memory_order_release); }
  bool frozen() const override { return frozen_.load(std::memory_order_acquire); }
  size_t MemoryUsage() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return rows_.size() * kNodeBytes;  // the map's nodes; the rows are the allocator's
  }
  uint64_t NumEntries() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return rows_.size();
  }
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t n = 0;
    for (auto it = rows_.lower_bound(start);
         it != rows_.end() && order_.CompareRowToKey(*it, end) < 0; ++it) {
      ++n;
    }
    return n;
  }

 private:
  static constexpr size_t kNodeBytes = 48;

  // Rows by internal key; a row also compares with an internal key.
  struct Less {
    using is_transparent = void;
    const format::KeyOrder* order;
    bool operator()(const char* a, const char* b) const { return order->CompareRows(a, b) < 0; }
    bool operator()(const char* a, std::string_view b) const {
      return order->CompareRowToKey(a, b) < 0;
    }
    bool operator()(std::string_view a, const char* b) const {
      return order->CompareRowToKey(b, a) > 0;
    }
  };

  // A copy of the rows taken at each positioning call, so that a re-seek
  // sees what was inserted since (the rep contract, point 3).
  class Iterator final : public RepIterator {
   public:
    explicit Iterator(const MapRep* rep) : rep_(rep) {}
    bool Valid() const override { return pos_ >= 0 && pos_ < static_cast<ptrdiff_t>(rows_.size()); }
    const char* row() const override { return rows_[static_cast<size_t>(pos_)]; }
    void SeekToFirst() override {
      rows_ = rep_->Rows();
      pos_ = 0;
    }
    void SeekToLast() override {
      rows_ = rep_->Rows();
      pos_ = static_cast<ptrdiff_t>(rows_.size()) - 1;
    }
    void Seek(std::string_view internal_key) override {
      rows_ = rep_->Rows();
      pos_ = std::lower_bound(rows_.begin(), rows_.end(), internal_key, rep_->rows_.key_comp()) -
             rows_.begin();
    }
    void SeekForPrev(std::string_view internal_key) override {
      rows_ = rep_->Rows();
      pos_ = std::upper_bound(rows_.begin(), rows_.end(), internal_key, rep_->rows_.key_comp()) -
             rows_.begin() - 1;
    }
    void Next() override { ++pos_; }
    void Prev() override { --pos_; }
    // A binary search, which can step past a key moved out of order: the
    // rows beside where it landed must be in order.
    const char* DisorderNearSeek(const char** before) const override {
      const ptrdiff_t last = std::min<ptrdiff_t>(pos_ + 2, std::ssize(rows_) - 1);
      for (ptrdiff_t i = std::max<ptrdiff_t>(pos_ - 2, 0); i < last; ++i) {
        if (rep_->order_.CompareRows(rows_[i], rows_[i + 1]) >= 0) {
          *before = rows_[i];
          return rows_[i + 1];
        }
      }
      return nullptr;
    }

   private:
    const MapRep* rep_;
    std::vector<const char*> rows_;
    ptrdiff_t pos_ = -1;
  };

  std::vector<const char*> Rows() const {
    std::lock_guard<std::mutex> lock(mu_);
    return std::vector<const char*>(rows_.begin(), rows_.end());
  }

  const MapRepOptions options_;
  Allocator* const allocator_;
  const format::KeyOrder order_;
  mutable std::mutex mu_;
  std::set<const char*, Less> rows_{Less{&order_}};
  std::atomic<uint64_t> allocated_{0};
  std::atomic<bool> frozen_{false};
};

const registry::OptionTable& MapOptionTable() {
  static const registry::OptionTable table =
      registry::OptionTable::For<MapRepOptions>("test.Map")
          .Count("max_entries", &MapRepOptions::max_entries, 1, uint64_t{1} << 40,
                 "entries taken before the rep answers Full; auto: no limit", true);
  return table;
}

Status MakeMapRep(const registry::AnyOptions& options, const RepContext& context,
                  std::unique_ptr<Rep>* out) {
  *out = std::make_unique<MapRep>(options.As<MapRepOptions>(), context);
  return Status::OK();
}

// Two registrations of the same class: one with every trait a rep can have,
// one with none, so that the suite's trait-driven paths all run.
registry::Registration MapRegistration(const char* name, const char* alias, bool capable) {
  registry::Registration r;
  r.name = name;
  r.aliases = {alias};
  r.summary = capable ? "a sorted std::map under a mutex (tests only)"
                      : "the same map, declaring no concurrency, no duplicate detection, "
                        "bytewise orders only (tests only)";
  r.traits.concurrent_insert = capable;
  r.traits.duplicates = capable ? RepTraits::Duplicates::kAll : RepTraits::Duplicates::kNone;
  r.traits.comparators = capable ? RepTraits::Comparators::kAny : RepTraits::Comparators::kBytewise;
  r.traits.point_read_while_mutable = RepTraits::Cost::kLogarithmic;
  r.traits.new_iterator_while_mutable = RepTraits::Cost::kLinear;
  r.options = &MapOptionTable();
  r.positional_option = "max_entries";
  r.make = MakeMapRep;
  return r;
}

const registry::Registration kMap = MapRegistration("test.Map", "test_map", true);
const registry::Registration kPlainMap = MapRegistration("test.PlainMap", "test_plain_map", false);

// Registered with one line each.
const registry::Registrar kMapRegistrar(&kMap);
const registry::Registrar kPlainMapRegistrar(&kPlainMap);

}  // namespace
}  // namespace memrep::testing
