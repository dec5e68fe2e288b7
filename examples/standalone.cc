// memrep's standalone face: a multi-version memtable with no RocksDB.
// Built and run by CI (ctest: example_standalone).
#include <cstdio>
#include <memory>
#include <string>

#include "memrep/memtable.h"

int main() {
  memrep::MemTableOptions options;
  options.sorted_hash.write_buffer_size = 16 << 20;  // sizes the hash index

  std::unique_ptr<memrep::MemTable> table;
  memrep::Status s = memrep::MemTable::Open(options, &table);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }

  // Writes carry the caller's sequence numbers.
  table->Put("apple", "red", 1);
  table->Put("banana", "yellow", 2);
  table->Put("apple", "green", 3);
  memrep::WriteBatch batch;
  batch.Put("cherry", "dark red");
  batch.Delete("banana");
  table->Write(batch, 4);  // cherry@4, banana deleted @5

  // Point reads at a snapshot.
  std::string value;
  table->Get("apple", 2, &value);
  std::printf("apple at snapshot 2: %s\n", value.c_str());
  table->Get("apple", 10, &value);
  std::printf("apple now: %s\n", value.c_str());
  std::printf("banana now: %s\n", table->Get("banana", 10, &value).ToString().c_str());

  // A bad write is refused with a reason, never stored.
  s = table->Put("apple", "blue", 3);
  std::printf("rewriting apple@3: %s\n", s.ToString().c_str());

  // Freeze, then drain every version in order, as a flush would.
  table->Freeze();
  std::printf("flush of %llu records:\n", static_cast<unsigned long long>(table->NumEntries()));
  table->Drain([](const memrep::EntryView& e) {
    std::printf("  %.*s @%llu %s %.*s\n", static_cast<int>(e.user_key.size()), e.user_key.data(),
                static_cast<unsigned long long>(e.sequence()), e.type() == 0 ? "del" : "put",
                static_cast<int>(e.value.size()), e.value.data());
  });
  return 0;
}
