#include "reps.h"

#include <cstdio>

#include "memrep/registry.h"

namespace memrep::phased {

bool IsAuto(std::string_view spec) {
  memrep::RepSpec parsed;
  memrep::RepInfo info;
  return memrep::RepSpec::Parse(spec, &parsed).ok() &&
         memrep::DescribeRep(parsed.name(), &info).ok() && info.chooses_per_memtable;
}

rdb::Status NewFactory(const std::string& spec, std::shared_ptr<rdb::MemTableRepFactory>* out) {
  if (spec == "skip_list") {
    *out = std::make_shared<rdb::SkipListFactory>();
    return rdb::Status::OK();
  }
  return memrep::rocksdb_plugin::NewRepFactory(spec, out);
}

bool CheckReps(const Flags& flags, std::string* error) {
  std::string names;
  for (const std::string& spec : flags.reps) {
    std::shared_ptr<rdb::MemTableRepFactory> factory;
    const rdb::Status s = NewFactory(spec, &factory);
    if (!s.ok() || factory == nullptr) {
      *error = "--reps: cannot create memtable factory '" + spec +
               "': " + (s.ok() ? "no factory returned" : s.ToString()) +
               "\n  (skip_list, or memrep's names: memrep.SortedHash, memrep.Vector, "
               "memrep.Trie, memrep.Columnar, memrep.Auto, or an options string such as "
               "'id=memrep.Auto; margin_percent=10')";
      return false;
    }
    char line[256];
    std::snprintf(line, sizeof line, "rep %-20s factory %s\n", spec.c_str(), factory->Name());
    names += line;
  }
  std::fputs(names.c_str(), stdout);
  return true;
}

bool HasAutoCounters(const rdb::MemTableRepFactory& factory) {
  memrep::AutoCounters counters;
  return memrep::rocksdb_plugin::GetAutoCounters(factory, &counters).ok();
}

}  // namespace memrep::phased
