#include "trie/trie_options_check.h"

#include <string>

namespace memrep::trie {

Status CheckRowsFace(const TrieOptions& options) {
  if (options.convert_to_sst != "kDontConvert") {
    return Status::NotSupported(
        std::string(TrieOptions::kName) + " convert_to_sst=" + options.convert_to_sst +
        ": stock RocksDB has no way to adopt a memtable as a table, so inside RocksDB a trie is "
        "flushed like any memtable; use convert_to_sst=kDontConvert (dir= still places the "
        "memtable's memory in a file)");
  }
  if (!options.file.empty()) {
    return Status::InvalidArgument(
        std::string(TrieOptions::kName) + " file=" + options.file +
        ": RocksDB keeps several memtables at once, so a file per memtable is made in a "
        "directory; use dir= instead");
  }
  return Status::OK();
}

}  // namespace memrep::trie
