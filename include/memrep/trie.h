// The trie rep (memrep.Trie, also "cspp"): a concurrent Patricia trie in one
// contiguous region reserved up front and addressed by 4-byte offsets, so the
// same bytes work in anonymous memory, on huge pages or in a file mapping.
// Point reads and writes walk a few small nodes (no comparisons of whole
// keys until the leaf); key prefixes are stored once; readers take no lock.
// A file-backed trie survives a process crash with every acknowledged write,
// and a frozen one is a sorted table as it lies (memrep/trie_table.h).
// Design and costs: docs/trie.md; every option is listed there.
//
// Open it by name ("memrep.Trie", "cspp") or with options
// ("id=cspp; mem_cap=2G; use_vm=false; token_use_idle=true": the option
// names and spellings of ToplingDB's CSPP memtable carry over). It serves
// the bytewise comparator and its reverse only.
#pragma once

#include <cstdint>
#include <string>

#include "memrep/export.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT TrieOptions {
  static constexpr const char* kName = "memrep.Trie";

  // Address space reserved for the memtable (2G, 512M, ...); pages are
  // resident only once written. At most kMaxMemCap (4-byte offsets).
  uint64_t mem_cap = uint64_t{2} << 30;
  // true: reserve with mmap (nothing resident until written); false: with
  // the allocator.
  bool use_vm = true;
  // Huge pages: "false" (none), "transparent" (ask the kernel's transparent
  // huge pages), "true" or "explicit" (MAP_HUGETLB pages the system has
  // reserved with vm.nr_hugepages).
  std::string use_hugepage = "false";
  // Make pages resident as the trie grows into them, so a write never
  // faults for lack of memory later.
  bool vm_explicit_commit = false;
  // What Freeze makes of the memtable: "kDontConvert" (nothing), "kFileMmap"
  // (a file-backed trie becomes a table file in place), "kDumpMem" (an
  // anonymous trie is written to `file` as a table). The last two only in
  // the standalone face: stock RocksDB cannot adopt a memtable as a table.
  std::string convert_to_sst = "kDontConvert";
  // With a table: msync and fsync it at Freeze.
  bool sync_sst_file = true;
  // Standalone face: back the region by this file (kFileMmap, or memory
  // placement with kDontConvert), or dump to it (kDumpMem).
  std::string file;
  // Either face: back each memtable's region by a new file in this
  // directory (a tmpfs or DAX mount, for memory placement); the file is
  // removed with the memtable.
  std::string dir;
  // ToplingDB options with no effect outside ToplingDB, accepted so its
  // configurations carry over (docs/trie.md says why each means nothing here).
  std::string ref_log_format = "kShortLogRef";
  bool token_use_idle = true;
  bool accurate_memsize = false;

  static constexpr uint64_t kMinMemCap = uint64_t{64} << 10;
  static constexpr uint64_t kMaxMemCap = uint64_t{8} << 30;
  // A RocksDB write_buffer_size must leave this share of mem_cap free.
  static constexpr uint64_t kWriteBufferShareNum = 3, kWriteBufferShareDen = 4;

  // OK, or InvalidArgument naming the bad field, its value and what is allowed.
  Status Validate() const;
  // "id=memrep.Trie; mem_cap=2147483648; use_vm=true; ..."
  std::string Spec() const;
};

}  // namespace memrep
