// The columnar rep's entry in the registry: its names, traits, option table
// and constructor.
#pragma once

#include "registry/registry.h"

namespace memrep::columnar {

const registry::Registration& RepRegistration();
// The table of ColumnarOptions.
const registry::OptionTable& OptionTableOf();

}  // namespace memrep::columnar
