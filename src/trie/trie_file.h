// A frozen trie as a table file: the region's bytes as they lie, and a
// footer that says where the trie ends and vouches for its header.
//
//   offset 0          64                                 trie_bytes      +64
//          [ Meta    ][ root K256 ][ nodes, leaves, versions ][ TableFooter ]
//          └──────────── the region's [0, used) at Freeze ──┘
//
// Two ways to make one (TrieRep::Freeze picks by convert_to_sst):
//  - kFileMmap, WriteTableFromRegion: the region is the file (MAP_SHARED).
//    The footer is bumped from the region right after the trie, and the
//    file truncated to the footer's end. O(1) in the size of the trie: no
//    byte of the trie is read or copied (sync adds an msync of the dirty
//    pages and an fsync).
//  - kDumpMem, DumpTable: the region is memory; its [0, used) and the
//    footer are written to a new file. O(size).
//
// What the footer guards: its own fields and the Meta, by an XXH3 checksum,
// and the file's length (the footer must end the file). The trie's body is
// not checksummed (that would cost a pass over it at Freeze and at Open);
// Trie::Check walks and verifies it on demand (TrieTable::Verify).
//
// After a process crash, a file-backed region that was never frozen has no
// footer: OpenTable refuses it (Corruption), and VmRegion::OpenReadOnly +
// Trie::Attach read it as a live image instead (the crash test does).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "memory/vm_region.h"
#include "memrep/status.h"
#include "trie/trie.h"

namespace memrep::trie {

// The last 64 bytes of a table file, little-endian as the machine writes it
// (memrep's regions are read where they were written: x86-64, AArch64).
struct TableFooter {
  static constexpr uint64_t kMagic = 0x316c627450524d4dULL;  // "MMRPtbl1"
  static constexpr uint32_t kFormatVersion = 1;
  uint64_t magic;
  uint32_t format_version;
  uint32_t mode;         // Trie::Mode, as in the Meta
  uint64_t trie_bytes;   // the trie's bytes [0, trie_bytes); the footer starts here
  uint64_t entries;      // versions stored (Trie::NumEntries at Freeze)
  uint32_t root;         // the Meta's root Ref
  uint32_t comparator;   // the Meta's comparator: 0 bytewise, 1 reverse
  uint64_t reserved[2];  // zero
  uint64_t checksum;     // XXH3_64bits of the Meta's 64 bytes, then the bytes above
};
static_assert(sizeof(TableFooter) == 64);

// The footer's checksum, over `meta` and the footer's fields before the checksum.
uint64_t FooterChecksum(const Meta& meta, const TableFooter& footer);

// Makes the file-backed region of a frozen trie a table in place: bumps the
// footer's 64 bytes from the region, writes it, truncates the file to its
// end and, with `sync`, writes the file back (msync, fsync of the file and
// of its directory), so the table is durable when it returns. The region
// stays mapped and the trie readable. REQUIRES: trie.frozen(), `region` is the
// trie's, no Bump runs, called once per region (a second call finds no room
// for a second footer: Full). InvalidArgument: the region is not
// file-backed; Full: the region has no 64 bytes left for the footer (the
// trie's reserve was used up); IOError from the file.
Status WriteTableFromRegion(const Trie& trie, memory::VmRegion& region, bool sync);

// Writes the region's [0, used) and the footer to a new file at `path`
// (created, or truncated if it exists) with large write(2)s; with `sync`,
// fsyncs it and its directory. REQUIRES: trie.frozen(). IOError naming the
// path on failure (a partly written file is removed).
Status DumpTable(const Trie& trie, const memory::VmRegion& region, const std::string& path,
                 bool sync);

// Maps a table file read-only and attaches its trie (frozen). Corruption,
// naming the file and what is wrong, if it is too short, has no footer at
// its end (truncated, a live image, another kind of file), a footer of
// another version, a checksum that does not match (a byte changed in the
// footer or the Meta), or sizes outside the file; NotSupported for a trie of
// the RocksDB face (rows), whose rows were never in it. IOError if it cannot
// be opened. *footer (if given) gets the footer. The trie refers to *region,
// which must outlive it.
Status OpenTable(const std::string& path, std::unique_ptr<memory::VmRegion>* region,
                 std::unique_ptr<Trie>* trie, TableFooter* footer = nullptr);

}  // namespace memrep::trie
