// The columnar rep through the standalone face: bulk writes in one call, and
// many point reads in one call.
#include <cstdio>
#include <string>
#include <vector>

#include "memrep/columnar.h"
#include "memrep/memtable.h"

int main() {
  // Options from C++: fill the struct and pass its Spec() as the rep.
  memrep::ColumnarOptions columnar;
  columnar.shards = 4;
  memrep::MemTableOptions options;
  options.rep = columnar.Spec();
  options.write_buffer_size = 8 << 20;
  std::unique_ptr<memrep::MemTable> table;
  memrep::Status s = memrep::MemTable::Open(options, &table);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("rep: %s\n", options.rep.c_str());

  // 1000 records in one call, sequences 1..1000: one batch, no copy per record.
  memrep::WriteBatch batch;
  for (int i = 0; i < 1000 && s.ok(); ++i) {
    s = batch.Put("key" + std::to_string(i), "value" + std::to_string(i));
  }
  if (s.ok()) s = table->Write(batch, 1);
  std::printf("batch of %zu: %s, %llu entries\n", batch.Count(), s.ToString().c_str(),
              static_cast<unsigned long long>(table->NumEntries()));

  // Views with their own sequences and types. A record the rep refuses (key1
  // already has sequence 2) stops the batch; the records before it stay.
  const std::vector<memrep::EntryView> views = {
      memrep::EntryView::Of("key0", 2000, memrep::ValueType::kValue, "newer"),
      memrep::EntryView::Of("key1", 2, memrep::ValueType::kValue, "duplicate"),
      memrep::EntryView::Of("key2", 2001, memrep::ValueType::kDeletion, ""),
  };
  s = table->Write(views);
  std::printf("views: %s\n", s.ToString().c_str());

  // Many keys at one snapshot in one call.
  const std::vector<std::string_view> keys = {"key0", "key1", "key2", "nokey"};
  std::vector<std::string> values;
  std::vector<memrep::Status> statuses;
  for (memrep::SequenceNumber snapshot :
       {memrep::SequenceNumber{1000}, memrep::kMaxSequenceNumber}) {
    s = table->MultiGet(keys, snapshot, &values, &statuses);
    for (size_t i = 0; s.ok() && i < keys.size(); ++i) {
      std::printf("%s at %s: %s\n", std::string(keys[i]).c_str(),
                  snapshot == 1000 ? "1000" : "latest",
                  statuses[i].ok() ? values[i].c_str() : statuses[i].ToString().c_str());
    }
  }

  // A frozen table is sorted into one block in the background; the drain
  // (a flush) sees every version in order either way.
  s = table->Freeze();
  size_t drained = 0;
  if (s.ok()) s = table->Drain([&](const memrep::EntryView&) { ++drained; });
  std::printf("drained %zu versions: %s\n", drained, s.ToString().c_str());
  return s.ok() ? 0 : 1;
}
