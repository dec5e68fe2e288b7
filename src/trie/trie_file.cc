#include "trie/trie_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <system_error>

namespace memrep::trie {

namespace {

constexpr uint64_t kFooterBytes = sizeof(TableFooter);
// The smallest table: a Meta, an empty root and a footer.
constexpr uint64_t kMinTableBytes =
    sizeof(Meta) + kNodeBytes[static_cast<int>(Kind::kK256)] + kFooterBytes;
// DumpTable writes this much at a time.
constexpr uint64_t kWriteChunk = uint64_t{8} << 20;

std::string Quoted(const std::string& path) { return "'" + path + "'"; }

std::string ErrnoText(int err) { return std::generic_category().message(err); }

TableFooter MakeFooter(const Trie& trie, const Meta& meta, uint64_t trie_bytes) {
  TableFooter f{};
  f.magic = TableFooter::kMagic;
  f.format_version = TableFooter::kFormatVersion;
  f.mode = meta.mode;
  f.trie_bytes = trie_bytes;
  f.entries = trie.NumEntries();
  f.root = meta.root;
  f.comparator = meta.comparator;
  f.checksum = FooterChecksum(meta, f);
  return f;
}

Meta ReadMeta(const memory::VmRegion& region) {
  Meta meta;
  std::memcpy(&meta, region.base(), sizeof(meta));
  return meta;
}

// Writes all of [data, data + size) at `offset`, retrying short writes.
Status WriteAll(int fd, const char* data, uint64_t size, uint64_t offset, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, std::min(size, kWriteChunk), static_cast<off_t>(offset));
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return Status::IOError("could not write the table file " + Quoted(path) + " at byte " +
                             std::to_string(offset) + ": " + ErrnoText(err));
    }
    data += n;
    size -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

// A new file's name is durable once its directory is synced too.
Status SyncDirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Status::IOError("could not open the directory " + Quoted(dir) +
                           " to sync it: " + ErrnoText(err));
  }
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) {
    return Status::IOError("could not sync the directory " + Quoted(dir) + ": " + ErrnoText(err));
  }
  return Status::OK();
}

}  // namespace

uint64_t FooterChecksum(const Meta& meta, const TableFooter& footer) {
  constexpr size_t kCovered = offsetof(TableFooter, checksum);
  char bytes[sizeof(Meta) + kCovered];
  std::memcpy(bytes, &meta, sizeof(Meta));
  std::memcpy(bytes + sizeof(Meta), &footer, kCovered);
  return XXH3_64bits(bytes, sizeof(bytes));
}

Status WriteTableFromRegion(const Trie& trie, memory::VmRegion& region, bool sync) {
  if (!region.file_backed() || region.read_only()) {
    return Status::InvalidArgument(
        "a table is made in place only from a writable file-backed region "
        "(convert_to_sst=kFileMmap with file=); dump a memory region with kDumpMem");
  }
  // The footer takes the region's next bytes (the trie's reserve leaves
  // room for it: nothing else is bumped once the trie is frozen).
  uint64_t at = 0;
  Status s = region.Bump(kFooterBytes, &at);
  if (!s.ok()) {
    return Status::Full("the region of " + Quoted(region.path()) + " has no " +
                        std::to_string(kFooterBytes) + " bytes left for the table footer (" +
                        std::to_string(region.used()) + " of " + std::to_string(region.capacity()) +
                        " bytes used): the memtable is frozen and readable, but no table was "
                        "made; give it a larger mem_cap (" +
                        s.ToString() + ")");
  }
  const TableFooter footer = MakeFooter(trie, ReadMeta(region), at);
  // Through the file, not the mapping: the footer's page may never have been
  // touched, and the first touch of a page of a sparse file mapping faults it
  // in with readahead, which zero-fills a window of pages around it
  // (docs/results/2026-11-24-trie.md). A pwrite fills the one page. The
  // mapping shares the page cache, so it reads the footer too.
  s = WriteAll(region.fd(), reinterpret_cast<const char*>(&footer), kFooterBytes, at,
               region.path());
  if (!s.ok()) return s;
  const uint64_t end = at + kFooterBytes;
  // The sparse file was sized to the capacity: cut it at the footer's end,
  // so the footer ends the file (a reader finds it there).
  s = region.Truncate(end);
  if (!s.ok()) return s;
  if (!sync) return Status::OK();
  s = region.Sync(end);
  if (s.ok()) s = SyncDirectoryOf(region.path());
  return s;
}

Status DumpTable(const Trie& trie, const memory::VmRegion& region, const std::string& path,
                 bool sync) {
  const uint64_t used = region.used();
  const TableFooter footer = MakeFooter(trie, ReadMeta(region), used);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    return Status::IOError("could not create the table file " + Quoted(path) + ": " +
                           ErrnoText(err));
  }
  // The footer last: a file cut short by a failure has none, and no reader
  // takes it for a table.
  Status s = WriteAll(fd, region.base(), used, 0, path);
  if (s.ok()) s = WriteAll(fd, reinterpret_cast<const char*>(&footer), kFooterBytes, used, path);
  if (s.ok() && sync && ::fsync(fd) != 0) {
    const int err = errno;
    s = Status::IOError("could not sync the table file " + Quoted(path) +
                        ": fsync: " + ErrnoText(err));
  }
  if (::close(fd) != 0 && s.ok()) {
    const int err = errno;
    s = Status::IOError("could not close the table file " + Quoted(path) + ": " + ErrnoText(err));
  }
  if (s.ok() && sync) s = SyncDirectoryOf(path);
  if (!s.ok()) ::unlink(path.c_str());
  return s;
}

Status OpenTable(const std::string& path, std::unique_ptr<memory::VmRegion>* region,
                 std::unique_ptr<Trie>* trie, TableFooter* footer_out) {
  // Too short for a table: Corruption (VmRegion refuses an empty file with
  // IOError, which would read as a failure to open it).
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) < kMinTableBytes) {
    return Status::Corruption("the file " + Quoted(path) + " is " + std::to_string(st.st_size) +
                              " bytes: too short for a memrep trie table (at least " +
                              std::to_string(kMinTableBytes) + ")");
  }
  std::unique_ptr<memory::VmRegion> r;
  Status s = memory::VmRegion::OpenReadOnly(path, &r);
  if (!s.ok()) return s;
  const uint64_t size = r->used();
  if (size < kMinTableBytes) {  // changed since the stat
    return Status::Corruption("the file " + Quoted(path) + " is " + std::to_string(size) +
                              " bytes: too short for a memrep trie table");
  }
  TableFooter footer;
  std::memcpy(&footer, r->base() + size - kFooterBytes, kFooterBytes);
  const Meta meta = ReadMeta(*r);
  const std::string where =
      "the table file " + Quoted(path) + " (" + std::to_string(size) + " bytes)";
  if (footer.magic != TableFooter::kMagic) {
    return Status::Corruption(where +
                              " has no table footer at its end: it is truncated, a region "
                              "image never frozen into a table, or not a memrep trie table");
  }
  if (footer.format_version != TableFooter::kFormatVersion) {
    return Status::Corruption(
        where + " has table format version " + std::to_string(footer.format_version) +
        "; this build reads version " + std::to_string(TableFooter::kFormatVersion));
  }
  if (footer.checksum != FooterChecksum(meta, footer)) {
    return Status::Corruption(where +
                              ": the footer's checksum does not match the footer and the "
                              "trie's header (a byte of its first or last 64 bytes changed)");
  }
  if (footer.trie_bytes != size - kFooterBytes) {
    return Status::Corruption(where + ": the footer says the trie ends at byte " +
                              std::to_string(footer.trie_bytes) + ", not where the footer is");
  }
  if (meta.magic != Meta::kMagic || footer.mode != meta.mode || footer.root != meta.root ||
      footer.comparator != meta.comparator ||
      OffsetOf(footer.root) + kNodeBytes[static_cast<int>(Kind::kK256)] > footer.trie_bytes) {
    return Status::Corruption(where + ": the footer and the trie's header disagree");
  }
  // Attach bounds the root by the file's size; the footer said it lies
  // before the trie's end, which is tighter.
  std::unique_ptr<Trie> t;
  s = Trie::Attach(r.get(), &t);
  if (s.IsNotSupported()) return Status::NotSupported(where + ": " + s.message());
  if (!s.ok()) return Status::Corruption(where + ": " + s.message());
  if (footer_out != nullptr) *footer_out = footer;
  *region = std::move(r);
  *trie = std::move(t);
  return Status::OK();
}

}  // namespace memrep::trie
