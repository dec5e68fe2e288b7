#include "trie/registration.h"

#include <cstdio>
#include <mutex>

#include "memrep/trie.h"
#include "registry/typed_registration.h"
#include "trie/node.h"
#include "trie/trie_options_check.h"
#include "trie/trie_rep.h"

namespace memrep {

namespace trie {

const registry::OptionTable& OptionTableOf() {
  using O = TrieOptions;
  static const registry::OptionTable table =
      registry::OptionTable::For<O>(O::kName)
          .Bytes("mem_cap", &O::mem_cap, O::kMinMemCap, O::kMaxMemCap,
                 "address space reserved for one memtable (2G, 512M, ...); only what is "
                 "written becomes resident")
          .Bool("use_vm", &O::use_vm,
                "reserve the region with mmap (true) or the allocator (false)")
          .Choice("use_hugepage", &O::use_hugepage, {"false", "true", "transparent", "explicit"},
                  "huge pages: none, transparent (madvise), or explicit (true: MAP_HUGETLB "
                  "pages reserved with vm.nr_hugepages)")
          .Bool("vm_explicit_commit", &O::vm_explicit_commit,
                "make pages resident as the trie grows into them")
          .Choice("convert_to_sst", &O::convert_to_sst, {"kDontConvert", "kDumpMem", "kFileMmap"},
                  "what Freeze makes of the memtable: nothing, a table file written from memory, "
                  "or the file-backed region itself as a table (standalone face only)")
          .Bool("sync_sst_file", &O::sync_sst_file, "msync and fsync a table file at Freeze")
          .String("file", &O::file,
                  "standalone face: the file backing the region (or receiving the dump)")
          .String("dir", &O::dir,
                  "a directory in which each memtable's region gets a file of its own, removed "
                  "with the memtable (memory placement: tmpfs, DAX)")
          .Choice("ref_log_format", &O::ref_log_format,
                  {"kNoLogRef", "kPlainLogRef", "kShortLogRef"},
                  "ToplingDB's WAL references; no effect in memrep")
          .Bool("token_use_idle", &O::token_use_idle,
                "ToplingDB's token ring tuning; no effect in memrep")
          .Bool("accurate_memsize", &O::accurate_memsize,
                "ToplingDB's test-only memory accounting; no effect in memrep")
          .Check([](const O& o) -> Status {
            if (o.use_hugepage != "false" && (!o.file.empty() || !o.dir.empty())) {
              return Status::InvalidArgument(
                  "trie option use_hugepage=" + o.use_hugepage +
                  " cannot back a file mapping (file= or dir=); use one or the other");
            }
            if (!o.file.empty() && !o.dir.empty()) {
              return Status::InvalidArgument(
                  "trie options file= and dir= are exclusive: file names the one file of a "
                  "standalone memtable, dir a directory for one file per memtable");
            }
            if (o.convert_to_sst != "kDontConvert" && o.file.empty()) {
              return Status::InvalidArgument("trie option convert_to_sst=" + o.convert_to_sst +
                                             " needs file= (the table file to make)");
            }
            if (o.use_hugepage == "explicit" || o.use_hugepage == "true") {
              if (!o.use_vm) {
                return Status::InvalidArgument("trie option use_hugepage=" + o.use_hugepage +
                                               " maps huge pages with mmap: it needs use_vm=true");
              }
            }
            return Status::OK();
          });
  return table;
}

namespace {

// Options that mean something only inside ToplingDB: accepted, and said once
// per process when set to anything but their default.
void NoteIgnored(const TrieOptions& o) {
  static std::once_flag once;
  const TrieOptions d;
  if (o.ref_log_format == d.ref_log_format && o.token_use_idle == d.token_use_idle &&
      o.accurate_memsize == d.accurate_memsize) {
    return;
  }
  std::call_once(once, [] {
    std::fprintf(stderr,
                 "memrep: %s ignores ref_log_format, token_use_idle and accurate_memsize "
                 "(ToplingDB options with no meaning here; see docs/trie.md)\n",
                 TrieOptions::kName);
  });
}

Status CheckRowsFaceOf(const registry::AnyOptions& options) {
  return CheckRowsFace(options.As<TrieOptions>());
}

// RocksDB switches a memtable once its memory usage (the arena's rows and
// the region's nodes) reaches write_buffer_size, so the nodes never need
// more; a quarter of mem_cap stays for what writers in flight add meanwhile
// and for the nodes' reserve.
Status CheckWriteBufferSize(const registry::AnyOptions& options, uint64_t write_buffer_size) {
  const uint64_t mem_cap = options.As<TrieOptions>().mem_cap;
  const uint64_t fits =
      mem_cap / TrieOptions::kWriteBufferShareDen * TrieOptions::kWriteBufferShareNum;
  if (write_buffer_size <= fits) return Status::OK();
  return Status::InvalidArgument(
      std::string(TrieOptions::kName) + " with mem_cap=" + std::to_string(mem_cap) +
      " holds a write_buffer_size of at most " + std::to_string(fits) +
      " bytes (3/4 of mem_cap), not " + std::to_string(write_buffer_size) +
      "; raise mem_cap to at least " + std::to_string((write_buffer_size / 3 + 1) * 4) +
      " or lower write_buffer_size");
}

Status Make(const TrieOptions& o, const RepContext& context, std::unique_ptr<Rep>* out) {
  NoteIgnored(o);
  return TrieRep::Make(o, context, out);
}

using Typed = registry::TypedRegistration<TrieOptions, OptionTableOf, Make>;

}  // namespace

const registry::Registration& RepRegistration() {
  static const registry::Registration registration = Typed::Describe({
      .aliases = {"trie", "cspp"},
      .summary = "a concurrent Patricia trie in one region addressed by 4-byte offsets: point "
                 "writes and reads walk a few small nodes, prefixes are stored once, readers "
                 "never lock, and a file-backed trie survives a crash",
      .traits = {.concurrent_insert = true,
                 .duplicates = RepTraits::Duplicates::kAll,
                 .comparators = RepTraits::Comparators::kBytewise,
                 .point_read_while_mutable = RepTraits::Cost::kLogarithmic,
                 .new_iterator_while_mutable = RepTraits::Cost::kConstant,
                 .max_memtable_bytes = TrieOptions::kMaxMemCap / TrieOptions::kWriteBufferShareDen *
                                       TrieOptions::kWriteBufferShareNum},
      .positional_option = "mem_cap",
      .conformance_options =
          {
              // The smallest region RocksDB's default 64 MiB write buffer fits in.
              "mem_cap=86M; use_vm=false",
          },
      .check_write_buffer_size = CheckWriteBufferSize,
      .check_rows_face = CheckRowsFaceOf,
  });
  return registration;
}

}  // namespace trie

Status TrieOptions::Validate() const { return trie::Typed::Validate(*this); }

std::string TrieOptions::Spec() const { return trie::Typed::Spec(*this); }

}  // namespace memrep
