// The sorted hash rep's entry in the registry: its names, traits, option
// table and constructor.
#pragma once

#include "registry/registry.h"

namespace memrep::sorted_hash {

const registry::Registration& RepRegistration();
// The table of SortedHashOptions.
const registry::OptionTable& OptionTableOf();

}  // namespace memrep::sorted_hash
