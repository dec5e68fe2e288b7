// Checks of TrieOptions that depend on the face the trie serves, shared by
// the rep (which refuses them when built) and its registration (which
// refuses them when a database opens).
#pragma once

#include "memrep/status.h"
#include "memrep/trie.h"

namespace memrep::trie {

// OK if these options can serve the RocksDB face: NotSupported for a table
// conversion (stock RocksDB cannot adopt one), InvalidArgument for file=.
Status CheckRowsFace(const TrieOptions& options);

}  // namespace memrep::trie
