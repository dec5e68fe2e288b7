// The vector rep's entry in the registry: its names, traits, option table and
// constructor.
#pragma once

#include "registry/registry.h"

namespace memrep::vector {

const registry::Registration& RepRegistration();
// The table of VectorOptions.
const registry::OptionTable& OptionTableOf();

}  // namespace memrep::vector
