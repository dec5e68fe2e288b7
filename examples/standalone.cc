// memrep's standalone face: a multi-version memtable with no RocksDB.
// Built and run by CI (ctest: example_standalone).
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/memtable.h"
#include "memrep/registry.h"

int main() {
  // Every rep memrep offers, by name, with what it can do.
  for (const memrep::RepInfo& rep : memrep::ListReps()) {
    std::printf("rep %s: %s\n", rep.name.c_str(), rep.summary.c_str());
  }

  // A rep is named by an options string: a name, or id=<name> and options.
  memrep::MemTableOptions options;
  options.rep = "id=memrep.SortedHash; max_runs=4";
  options.write_buffer_size = 16 << 20;  // sizes the hash index

  std::unique_ptr<memrep::MemTable> table;
  memrep::Status s = memrep::MemTable::Open(options, &table);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }

  // Writes carry the caller's sequence numbers; every one returns a Status.
  s = table->Put("apple", "red", 1);
  if (s.ok()) s = table->Put("banana", "yellow", 2);
  if (s.ok()) s = table->Put("apple", "green", 3);
  memrep::WriteBatch batch;
  if (s.ok()) s = batch.Put("cherry", "dark red");
  if (s.ok()) s = batch.Delete("banana");
  if (s.ok()) s = table->Write(batch, 4);  // cherry@4, banana deleted @5
  if (!s.ok()) {
    std::fprintf(stderr, "write: %s\n", s.ToString().c_str());
    return 1;
  }

  // Point reads at a snapshot.
  std::string value;
  if (table->Get("apple", 2, &value).ok()) std::printf("apple at snapshot 2: %s\n", value.c_str());
  if (table->Get("apple", 10, &value).ok()) std::printf("apple now: %s\n", value.c_str());
  std::printf("banana now: %s\n", table->Get("banana", 10, &value).ToString().c_str());

  // Many keys at one snapshot, in one call: each answered as Get would.
  const std::vector<std::string_view> keys = {"apple", "banana", "cherry"};
  std::vector<std::string> values;
  std::vector<memrep::Status> statuses;
  s = table->MultiGet(keys, 10, &values, &statuses);
  for (size_t i = 0; s.ok() && i < keys.size(); ++i) {
    std::printf("multiget %s: %s\n", std::string(keys[i]).c_str(),
                statuses[i].ok() ? values[i].c_str() : statuses[i].ToString().c_str());
  }

  // A bad write is refused with a reason, never stored.
  s = table->Put("apple", "blue", 3);
  std::printf("rewriting apple@3: %s\n", s.ToString().c_str());
  std::unique_ptr<memrep::MemTable> none;
  s = memrep::MemTable::Open("id=memrep.SortedHash; max_runs=1", &none);
  std::printf("a bad option: %s\n", s.ToString().c_str());

  // Freeze, then drain every version in order, as a flush would. A write
  // after Freeze is refused. (Freeze's status says whether a table file the
  // rep was asked to make at Freeze was made: none is, here.)
  s = table->Freeze();
  if (!s.ok()) std::printf("freeze: %s\n", s.ToString().c_str());
  std::printf("after freeze: %s\n", table->Put("late", "v", 9).ToString().c_str());
  std::printf("flush of %llu records:\n", static_cast<unsigned long long>(table->NumEntries()));
  s = table->Drain([](const memrep::EntryView& e) {
    std::printf("  %.*s @%llu %s %.*s\n", static_cast<int>(e.user_key.size()), e.user_key.data(),
                static_cast<unsigned long long>(e.sequence()), e.type() == 0 ? "del" : "put",
                static_cast<int>(e.value.size()), e.value.data());
  });
  return s.ok() ? 0 : 1;
}
