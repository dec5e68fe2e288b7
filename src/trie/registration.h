// The trie rep's entry in the registry: its names, traits, option table and
// constructor.
#pragma once

#include "memrep/trie.h"
#include "registry/registry.h"

namespace memrep::trie {

const registry::Registration& RepRegistration();
// The table of TrieOptions.
const registry::OptionTable& OptionTableOf();
// OK if these options can serve the RocksDB face: NotSupported for a table
// conversion (stock RocksDB cannot adopt one), InvalidArgument for file=.
Status CheckRowsFace(const TrieOptions& options);

}  // namespace memrep::trie
