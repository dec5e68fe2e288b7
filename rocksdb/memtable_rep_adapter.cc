#include "memtable_rep_adapter.h"

#include <random>
#include <string_view>

namespace memrep::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::Slice;

std::string_view View(const Slice& s) { return std::string_view(s.data(), s.size()); }

class IteratorAdapter final : public ROCKSDB_NAMESPACE::MemTableRep::Iterator {
 public:
  explicit IteratorAdapter(std::unique_ptr<RepIterator> it) : it_(std::move(it)) {}

  bool Valid() const override { return it_->Valid(); }
  const char* key() const override { return it_->entry(); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  // memtable_key may be null (MemTableIterator passes none); the internal key
  // is always given and is all memrep needs.
  void Seek(const Slice& internal_key, const char* /*memtable_key*/) override {
    it_->Seek(View(internal_key));
  }
  void SeekForPrev(const Slice& internal_key, const char* /*memtable_key*/) override {
    it_->SeekForPrev(View(internal_key));
  }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }

 private:
  const std::unique_ptr<RepIterator> it_;
};

}  // namespace

MemTableRepAdapter::MemTableRepAdapter(ROCKSDB_NAMESPACE::Allocator* arena,
                                       std::unique_ptr<ArenaAllocator> allocator,
                                       std::unique_ptr<Rep> rep)
    : MemTableRep(arena), allocator_(std::move(allocator)), rep_(std::move(rep)) {}

MemTableRepAdapter::~MemTableRepAdapter() = default;

bool MemTableRepAdapter::Contains(const char* memtable_key) const {
  return rep_->Contains(View(ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(memtable_key)));
}

void MemTableRepAdapter::Get(const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
                             bool (*callback)(void* arg, const char* entry)) {
  rep_->Get(View(InternalKeyOf(key)), arg, callback);
}

uint64_t MemTableRepAdapter::ApproximateNumEntries(const Slice& start_ikey, const Slice& end_ikey) {
  return rep_->ApproximateNumEntries(View(start_ikey), View(end_ikey));
}

void MemTableRepAdapter::UniqueRandomSample(const uint64_t /*num_entries*/,
                                            const uint64_t target_sample_size,
                                            std::unordered_set<const char*>* entries) {
  std::vector<const char*> sample;
  rep_->RandomSample(target_sample_size, std::random_device{}(), &sample);
  entries->insert(sample.begin(), sample.end());
}

ROCKSDB_NAMESPACE::MemTableRep::Iterator* MemTableRepAdapter::GetIterator(
    ROCKSDB_NAMESPACE::Arena* arena) {
  if (arena == nullptr) return new IteratorAdapter(rep_->NewIterator());
  // The caller only runs the destructor: the object must live in its arena.
  void* memory = AsAllocator(arena)->AllocateAligned(sizeof(IteratorAdapter));
  return new (memory) IteratorAdapter(rep_->NewIterator());
}

}  // namespace memrep::rocksdb_plugin
