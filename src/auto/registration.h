// memrep.Auto's entry in the registry: its names, option table, traits
// (those its candidates share) and constructor.
#pragma once

#include "registry/registry.h"

namespace memrep::auto_rep {

const registry::Registration& RepRegistration();
// The table of AutoOptions.
const registry::OptionTable& OptionTableOf();

}  // namespace memrep::auto_rep
