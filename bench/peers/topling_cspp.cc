// topling_cspp: ToplingDB's CSPP trie (terark::MainPatricia of topling-zip,
// a concurrent Patricia trie) as a rocksdb::MemTableRep, so that memrep_bench
// runs it beside memrep's own trie rep. Built by topling_cspp.cmake when
// MEMREP_PEER_TOPLING_ZIP names a topling-zip checkout.
//
// Design: the one of ToplingDB's CSPP memtable (its cspp-memtable repository),
// adapted to stock RocksDB's rep interface:
//
//   - the trie's key is the user key; its value (4 bytes) is the position of
//     a "pin" in the trie's own memory pool. The pin never moves; it holds a
//     spin lock and the position of the key's version block;
//   - a version block is {num, cap, versions[cap]}, each version
//     {tag, entry}: the 8-byte tag (sequence << 8 | type) and the address of
//     the RocksDB entry. Versions are kept in ascending tag order, so that
//     internal-key order (descending tag) is the block read backwards;
//   - writers: any number at once, each with its own thread-local token of
//     the trie (MultiWriteMultiRead, the mode ToplingDB's memtable uses). A
//     new user key is inserted into the trie with its first version already
//     in place (the token's init_value). A further version takes the pin's
//     lock: it is appended in place when it is the newest and the block has
//     room (published by a release store of num), else the block is copied
//     with it (cap doubled when full), the copy published by a release store
//     of the pin's block position, and the old block handed to the trie's
//     lazy free, which reuses it only once no token that may still read it
//     is active;
//   - readers take no lock: Get, Contains and iterators read the pin's block
//     position, then its num, then the versions below num, under an acquired
//     token, which keeps any block they may see from being reused meanwhile.
//     An iterator holds its position as (user key in the trie's iterator,
//     current tag, current entry), and finds its place in the key's block
//     again by tag on each Next and Prev, so that versions inserted meanwhile
//     never make it repeat or skip one;
//   - tokens are released to "idle" after each call and readers use the
//     writer token, as ToplingDB's memtable does by default
//     (token_use_idle, read_by_writer_token). The trie reserves 16 GiB of
//     address space (its maximum: 32-bit positions of 4-byte units),
//     committed as used (ToplingDB: use_vm, mem_cap 2 GiB by default), and
//     its pool hands memory to threads in 2 MiB chunks (ToplingDB's
//     chunk_size default).
//
// Differences from ToplingDB's memtable, and limits:
//   - stock RocksDB writes each entry into memory from Allocate (here the
//     arena RocksDB passes, by MemTableRep's default Allocate) and hands it to
//     Insert; ToplingDB's RocksDB fork instead passes key and value to
//     InsertKeyValue and the memtable copies the value into the trie's pool.
//     Here the versions point to the entries in the arena, and the trie holds
//     keys, pins and version blocks only: ApproximateMemoryUsage is the
//     trie's pool in use (ToplingDB's mem_size_inline), the arena counted
//     apart by RocksDB;
//   - ToplingDB keeps num (with a lock bit) in the pin beside the block
//     position; here num lives in the block, so that a reader always pairs a
//     block with its own count while a writer copies it;
//   - user keys are ordered bytewise (the trie's order); the comparator given
//     to CreateMemTableRep is not consulted. Reverse bytewise (which
//     ToplingDB's memtable supports) is not;
//   - an entry whose (user key, sequence) is already stored is refused
//     (InsertKey returns false), but the factory declares
//     CanHandleDuplicatedKey() false, as memrep_bench's peer table says;
//   - the trie's 16 GiB is a hard limit: an insert it has no room for aborts
//     the process with a message (RocksDB's Insert cannot fail);
//   - an iterator must be destroyed by the thread that used it, before the
//     rep (the trie's tokens are per thread);
//   - ApproximateNumEntries, UniqueRandomSample and hints are RocksDB's
//     defaults (none is used by memrep_bench).
#include <rocksdb/memtablerep.h>
#include <rocksdb/slice.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <terark/fsa/cspptrie.inl>
#include <thread>

#include "rocksdb_compat.h"

namespace memrep::bench {

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using terark::fstring;
using terark::MainPatricia;
using terark::Patricia;

// The trie's address space: its maximum (positions are 32-bit counts of
// 4-byte units). Negative: reserved, committed as touched.
constexpr intptr_t kTrieBytes = intptr_t{16} << 30;
// The trie's configuration string: its pool's per-thread chunk and no huge
// pages, ToplingDB's defaults.
constexpr const char* kTrieConfig = "?chunk_size=2097152&hugepage=0";

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "topling_cspp: %s\n", what);
  std::abort();
}

// --- RocksDB's entry encoding --------------------------------------------

const char* DecodeVarint32(const char* p, uint32_t* value) {
  uint32_t result = 0;
  for (uint32_t shift = 0; shift <= 28; shift += 7) {
    uint32_t byte = static_cast<unsigned char>(*p++);
    result |= (byte & 127) << shift;
    if ((byte & 128) == 0) break;
  }
  *value = result;
  return p;
}

uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);  // little-endian, as RocksDB writes it
  return v;
}

// The internal key (user key | tag) of an entry or memtable key.
rdb::Slice InternalKeyOfEntry(const char* entry) {
  uint32_t length;
  const char* p = DecodeVarint32(entry, &length);
  return rdb::Slice(p, length);
}

fstring UserKeyOf(const rdb::Slice& internal_key) {
  return fstring(internal_key.data(), internal_key.size() - 8);
}

uint64_t TagOf(const rdb::Slice& internal_key) {
  return DecodeFixed64(internal_key.data() + internal_key.size() - 8);
}

// --- Versions of one user key, in the trie's pool ------------------------

#pragma pack(push, 4)
struct Version {
  uint64_t tag;  // sequence << 8 | type
  const char* entry;
};
#pragma pack(pop)
static_assert(sizeof(Version) == 16);

struct Pin {
  uint32_t lock;   // 0 free, 1 held by a writer
  uint32_t block;  // trie position of the current VersionBlock
};

struct VersionBlock {
  uint32_t num;  // versions[0, num) are set; grows only in place
  uint32_t cap;
  Version* versions() { return reinterpret_cast<Version*>(this + 1); }
  const Version* versions() const { return reinterpret_cast<const Version*>(this + 1); }
  static size_t Bytes(uint32_t cap) { return sizeof(VersionBlock) + sizeof(Version) * cap; }
};
static_assert(sizeof(Pin) % MainPatricia::AlignSize == 0);
static_assert(sizeof(VersionBlock) % MainPatricia::AlignSize == 0);

template <class T>
T LoadAcquire(const T* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
template <class T>
void StoreRelease(T* p, T v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

// The first index in [0, num) whose tag is >= tag (num if none).
uint32_t LowerBound(const Version* v, uint32_t num, uint64_t tag) {
  uint32_t lo = 0, hi = num;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (v[mid].tag < tag) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The first index in [0, num) whose tag is > tag (num if none).
uint32_t UpperBound(const Version* v, uint32_t num, uint64_t tag) {
  uint32_t lo = 0, hi = num;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (v[mid].tag <= tag) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// What a reader sees of one key's versions: ascending tags, num >= 1.
struct VersionView {
  const Version* v;
  uint32_t num;
};

// The trie's writer token, which also carries the first version of a user
// key into the trie's init_value callback.
class Token : public Patricia::WriterToken {
 public:
  uint64_t tag = 0;
  const char* entry = nullptr;
  uint32_t pin_pos = 0;

 protected:
  // Called by the trie while it inserts a new user key, before the key is
  // visible: the key's pin and a first block holding its one version, in one
  // allocation. `valptr` receives the pin's position, the trie's value.
  bool init_value(void* valptr, size_t valsize) noexcept override {
    auto* trie = static_cast<MainPatricia*>(m_trie);
    (void)valsize;
    const size_t bytes = sizeof(Pin) + VersionBlock::Bytes(1);
    size_t pos = trie->mem_alloc(bytes);
    if (pos == MainPatricia::mem_alloc_fail) return false;
    auto* pin = static_cast<Pin*>(trie->mem_get(pos));
    auto* block = reinterpret_cast<VersionBlock*>(pin + 1);
    block->num = 1;
    block->cap = 1;
    block->versions()[0] = Version{tag, entry};
    pin->lock = 0;
    pin->block = static_cast<uint32_t>(pos + sizeof(Pin) / MainPatricia::AlignSize);
    pin_pos = static_cast<uint32_t>(pos);
    std::memcpy(valptr, &pin_pos, sizeof pin_pos);
    return true;
  }
  // The trie found the key inserted by another thread after init_value ran:
  // the pin was never published.
  void destroy_value(void* valptr, size_t valsize) noexcept override {
    (void)valptr;
    (void)valsize;
    static_cast<MainPatricia*>(m_trie)->mem_lazy_free(pin_pos, sizeof(Pin) + VersionBlock::Bytes(1),
                                                      this);
  }
};

class CsppRep final : public rdb::MemTableRep {
 public:
  explicit CsppRep(rdb::Allocator* allocator)
      : rdb::MemTableRep(allocator),
        trie_(sizeof(uint32_t), -kTrieBytes, Patricia::MultiWriteMultiRead, kTrieConfig) {}

  void Insert(rdb::KeyHandle handle) override { Add(static_cast<const char*>(handle)); }
  bool InsertKey(rdb::KeyHandle handle) override { return Add(static_cast<const char*>(handle)); }
  void InsertConcurrently(rdb::KeyHandle handle) override { Add(static_cast<const char*>(handle)); }
  bool InsertKeyConcurrently(rdb::KeyHandle handle) override {
    return Add(static_cast<const char*>(handle));
  }

  bool Contains(const char* key) const override {
    const rdb::Slice ikey = InternalKeyOfEntry(key);
    const uint64_t tag = TagOf(ikey);
    Token* token = AcquireToken();
    bool found = false;
    if (trie_.lookup(UserKeyOf(ikey), token)) {
      VersionView view = Versions(trie_.value_of<uint32_t>(*token));
      uint32_t i = LowerBound(view.v, view.num, tag);
      found = i < view.num && view.v[i].tag == tag;
    }
    token->idle();
    return found;
  }

  void MarkReadOnly() override { trie_.set_readonly(); }

  // RocksDB's Get: from the newest version at or below the lookup key's tag,
  // in internal-key order (descending tag), until the callback says stop.
  void Get(const rdb::LookupKey& k, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override {
    const rdb::Slice ikey = rocksdb_plugin::InternalKeyOf(k);
    const uint64_t tag = TagOf(ikey);
    Token* token = AcquireToken();
    if (trie_.lookup(UserKeyOf(ikey), token)) {
      VersionView view = Versions(trie_.value_of<uint32_t>(*token));
      for (uint32_t i = UpperBound(view.v, view.num, tag); i-- > 0;) {
        if (!callback_func(callback_args, view.v[i].entry)) break;
      }
    }
    token->idle();
  }

  size_t ApproximateMemoryUsage() override { return trie_.mem_size_inline(); }

  rdb::MemTableRep::Iterator* GetIterator(rdb::Arena* arena) override;

 private:
  class Iter;

  Token* AcquireToken() const {
    Token* token = trie_.tls_writer_token_nn<Token>();
    token->acquire(&trie_);
    return token;
  }

  VersionView Versions(uint32_t pin_pos) const {
    const auto* pin = static_cast<const Pin*>(trie_.mem_get(pin_pos));
    const auto* block = static_cast<const VersionBlock*>(trie_.mem_get(LoadAcquire(&pin->block)));
    return VersionView{block->versions(), LoadAcquire(&block->num)};
  }

  bool Add(const char* entry) {
    const rdb::Slice ikey = InternalKeyOfEntry(entry);
    Token* token = AcquireToken();
    token->tag = TagOf(ikey);
    token->entry = entry;
    uint32_t value = 0;
    bool added;
    if (trie_.insert(UserKeyOf(ikey), &value, token)) {
      if (!token->has_value()) Die("the trie's 16 GiB are full: no room for a new user key");
      added = true;  // init_value stored the version
    } else {
      added = AddVersion(token);
    }
    token->idle();
    return added;
  }

  // A further version of a user key the trie holds (the token is on it).
  bool AddVersion(Token* token) {
    auto* pin = static_cast<Pin*>(trie_.mem_get(trie_.value_of<uint32_t>(*token)));
    while (__atomic_exchange_n(&pin->lock, 1u, __ATOMIC_ACQUIRE) != 0) {
      std::this_thread::yield();
    }
    const uint32_t old_pos = pin->block;
    auto* old_block = static_cast<VersionBlock*>(trie_.mem_get(old_pos));
    const uint32_t num = old_block->num;
    const uint32_t cap = old_block->cap;
    Version* old_v = old_block->versions();
    const Version added{token->tag, token->entry};
    // The place by sequence (the type is not part of the order): a version
    // with the same sequence is a duplicate.
    const uint64_t seq_floor = added.tag & ~uint64_t{0xff};
    const uint32_t at = LowerBound(old_v, num, seq_floor);
    if (at < num && (old_v[at].tag >> 8) == (added.tag >> 8)) {
      StoreRelease(&pin->lock, 0u);
      return false;
    }
    if (at == num && num < cap) {
      old_v[num] = added;  // the newest: in place, then publish
      StoreRelease(&old_block->num, num + 1);
    } else {
      const uint32_t new_cap = num == cap ? cap * 2 : cap;
      size_t new_pos = trie_.mem_alloc(VersionBlock::Bytes(new_cap));
      if (new_pos == MainPatricia::mem_alloc_fail) {
        Die("the trie's 16 GiB are full: no room for a version block");
      }
      auto* block = static_cast<VersionBlock*>(trie_.mem_get(new_pos));
      Version* v = block->versions();
      std::memcpy(v, old_v, sizeof(Version) * at);
      v[at] = added;
      std::memcpy(v + at + 1, old_v + at, sizeof(Version) * (num - at));
      block->num = num + 1;
      block->cap = new_cap;
      StoreRelease(&pin->block, static_cast<uint32_t>(new_pos));
      trie_.mem_lazy_free(old_pos, VersionBlock::Bytes(cap), token);
    }
    StoreRelease(&pin->lock, 0u);
    return true;
  }

  mutable MainPatricia trie_;
};

// Internal-key order over the trie: user keys by the trie's iterator, the
// versions of each from the highest tag down.
class CsppRep::Iter final : public rdb::MemTableRep::Iterator {
 public:
  explicit Iter(CsppRep* rep) : rep_(rep) {}
  ~Iter() override {
    if (iter_ != nullptr) iter_->dispose();
  }
  Iter(const Iter&) = delete;
  Iter& operator=(const Iter&) = delete;

  bool Valid() const override { return entry_ != nullptr; }
  const char* key() const override { return entry_; }

  void Next() override {
    VersionView view = Current();
    uint32_t i = LowerBound(view.v, view.num, tag_);
    if (i > 0) {
      Set(view.v[i - 1]);
    } else if (iter_->incr()) {
      SetNewest();
    } else {
      entry_ = nullptr;
    }
  }

  void Prev() override {
    VersionView view = Current();
    uint32_t i = UpperBound(view.v, view.num, tag_);
    if (i < view.num) {
      Set(view.v[i]);
    } else if (iter_->decr()) {
      SetOldest();
    } else {
      entry_ = nullptr;
    }
  }

  // The first entry >= target: the target's user key at the highest tag <=
  // the target's, else the next user key's newest version.
  void Seek(const rdb::Slice& internal_key, const char*) override {
    const fstring user_key = UserKeyOf(internal_key);
    const uint64_t tag = TagOf(internal_key);
    if (!Trie()->seek_lower_bound(user_key)) {
      entry_ = nullptr;
      return;
    }
    if (iter_->word() == user_key) {
      VersionView view = Current();
      uint32_t i = UpperBound(view.v, view.num, tag);
      if (i > 0) {
        Set(view.v[i - 1]);
        return;
      }
      if (!iter_->incr()) {
        entry_ = nullptr;
        return;
      }
    }
    SetNewest();
  }

  // The last entry <= target: the target's user key at the lowest tag >= the
  // target's, else the previous user key's oldest version.
  void SeekForPrev(const rdb::Slice& internal_key, const char*) override {
    const fstring user_key = UserKeyOf(internal_key);
    const uint64_t tag = TagOf(internal_key);
    if (!Trie()->seek_rev_lower_bound(user_key)) {
      entry_ = nullptr;
      return;
    }
    if (iter_->word() == user_key) {
      VersionView view = Current();
      uint32_t i = LowerBound(view.v, view.num, tag);
      if (i < view.num) {
        Set(view.v[i]);
        return;
      }
      if (!iter_->decr()) {
        entry_ = nullptr;
        return;
      }
    }
    SetOldest();
  }

  void SeekToFirst() override {
    if (Trie()->seek_begin()) {
      SetNewest();
    } else {
      entry_ = nullptr;
    }
  }

  void SeekToLast() override {
    if (Trie()->seek_end()) {
      SetOldest();
    } else {
      entry_ = nullptr;
    }
  }

 private:
  // The trie's iterator, made at the first positioning. It is a reader token
  // of the trie, acquired while positioned.
  Patricia::Iterator* Trie() {
    if (iter_ == nullptr) iter_ = rep_->trie_.new_iter();
    return iter_;
  }
  VersionView Current() const { return rep_->Versions(rep_->trie_.value_of<uint32_t>(*iter_)); }
  void Set(const Version& v) {
    tag_ = v.tag;
    entry_ = v.entry;
  }
  void SetNewest() {
    VersionView view = Current();
    Set(view.v[view.num - 1]);
  }
  void SetOldest() { Set(Current().v[0]); }

  CsppRep* const rep_;
  Patricia::Iterator* iter_ = nullptr;
  uint64_t tag_ = 0;
  const char* entry_ = nullptr;  // null: not valid
};

rdb::MemTableRep::Iterator* CsppRep::GetIterator(rdb::Arena* arena) {
  if (arena == nullptr) return new Iter(this);
  void* mem = rocksdb_plugin::AsAllocator(arena)->AllocateAligned(sizeof(Iter));
  return new (mem) Iter(this);
}

class CsppFactory final : public rdb::MemTableRepFactory {
 public:
  rdb::MemTableRep* CreateMemTableRep(const rdb::MemTableRep::KeyComparator&,
                                      rdb::Allocator* allocator, const rdb::SliceTransform*,
                                      rdb::Logger*) override {
    return new CsppRep(allocator);
  }
  // The peer's canonical name in memrep_bench (peers.cc), which the bench's
  // tests hold the factory's Name() to; ToplingDB's is "CSPPMemTabFactory".
  const char* Name() const override { return "topling_cspp"; }
  bool IsInsertConcurrentlySupported() const override { return true; }
  bool CanHandleDuplicatedKey() const override { return false; }
};

}  // namespace

ROCKSDB_NAMESPACE::MemTableRepFactory* NewToplingCsppFactory() { return new CsppFactory(); }

}  // namespace memrep::bench
