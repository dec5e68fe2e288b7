// The trie rep's entry in the registry: its names, traits, option table and
// constructor.
#pragma once

#include "memrep/trie.h"
#include "registry/registry.h"

namespace memrep::trie {

const registry::Registration& RepRegistration();
// The table of TrieOptions.
const registry::OptionTable& OptionTableOf();

}  // namespace memrep::trie
