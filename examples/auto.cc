// memrep.Auto in the standalone face: an engine that switches memtables
// itself passes one RepLineage to each new memtable, and memrep.Auto chooses
// each one's rep from what the ones before it were asked to do and what
// their calls cost on this machine (docs/auto.md, "Learning").
// Built and run by CI (ctest: example_auto).
#include "memrep/auto.h"

#include <cstdio>
#include <memory>
#include <string>

#include "memrep/memtable.h"

namespace {

// Fills a memtable with `n` writes; with `read`, each write is followed by a
// point read of the key just written.
memrep::Status Fill(memrep::MemTable& table, uint64_t* seq, int n, bool read) {
  for (int i = 0; i < n; ++i, ++*seq) {
    const std::string key = "key" + std::to_string(*seq * 7919 % 100003);
    memrep::Status s = table.Put(key, "value", *seq);
    if (!s.ok()) return s;
    std::string value;
    if (read && !(s = table.Get(key, *seq, &value)).ok()) return s;
  }
  return memrep::Status::OK();
}

}  // namespace

int main() {
  auto lineage = std::make_shared<memrep::RepLineage>();
  memrep::MemTableOptions options;
  options.rep = "id=memrep.Auto; candidates=memrep.SortedHash,memrep.Vector,memrep.Trie";
  options.write_buffer_size = 1 << 20;
  options.lineage = lineage;  // the same lineage for every memtable

  uint64_t seq = 1;
  // Three write-only memtables, then three that also read what they write.
  for (int m = 0; m < 6; ++m) {
    std::unique_ptr<memrep::MemTable> table;
    memrep::Status s = memrep::MemTable::Open(options, &table);
    if (s.ok()) s = Fill(*table, &seq, 2000, /*read=*/m >= 3);
    if (s.ok()) s = table->Freeze();  // an engine would flush it now
    if (!s.ok()) {
      std::fprintf(stderr, "memtable %d: %s\n", m + 1, s.ToString().c_str());
      return 1;
    }
    const memrep::AutoDecision d = memrep::AutoCountersOf(*lineage).recent.back();
    std::printf("memtable %llu: %s (%s)\n", static_cast<unsigned long long>(d.memtable),
                d.rep.c_str(),
                d.previous.empty() ? "first"
                : d.switched       ? "switched"
                                   : "kept");
  }
  const memrep::AutoCounters c = memrep::AutoCountersOf(*lineage);
  std::printf("memtables %llu, switches %llu\n", static_cast<unsigned long long>(c.memtables),
              static_cast<unsigned long long>(c.switches));
  for (const auto& [rep, n] : c.per_rep) {
    std::printf("  %s: %llu\n", rep.c_str(), static_cast<unsigned long long>(n));
  }
  std::printf("last reason: %s\n", c.recent.back().reason.c_str());

  // A candidate that is not a rep is refused with a message.
  std::unique_ptr<memrep::MemTable> bad;
  options.rep = "id=memrep.Auto; candidates=memrep.SortedHash,nosuch";
  std::printf("bad candidates: %s\n", memrep::MemTable::Open(options, &bad).ToString().c_str());
  return 0;
}
