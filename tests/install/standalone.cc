// An installed memrep's standalone face: a memtable opened by rep name.
#include <memrep/memtable.h>
#include <memrep/version.h>

#include <cstdio>
#include <memory>
#include <string>

int main() {
  std::unique_ptr<memrep::MemTable> table;
  memrep::Status s = memrep::MemTable::Open("memrep.SortedHash", &table);
  if (s.ok()) s = table->Put("key", "value", 1);
  std::string value;
  if (s.ok()) s = table->Get("key", 1, &value);
  if (!s.ok() || value != "value") {
    std::fprintf(stderr, "standalone consumer: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("memrep %s standalone: %s=%s via %s\n", MEMREP_VERSION_STRING, "key", value.c_str(),
              table->rep_name().c_str());
  return 0;
}
