// memrep.Auto's candidates: the comma list of reps it chooses among, and
// what the registry asks of the list (the checks and traits of
// src/auto/registration.cc's hooks). Each rule holds for every candidate,
// since the choice may fall on any of them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/rep.h"
#include "memrep/status.h"
#include "registry/option_table.h"

namespace memrep::auto_rep {

// The comma list's names, trimmed; empty items are kept (and refused).
std::vector<std::string> SplitCandidates(std::string_view list);
// The canonical name `name` stands for, or "" if no rep has it.
std::string CanonicalName(std::string_view name);

// The registration's check_options: every candidate a registered rep other
// than memrep.Auto, none twice; pin and start among them.
Status CheckOptions(const registry::AnyOptions& options);
// The registration's traits_of: the traits every candidate offers.
RepTraits TraitsOf(const registry::AnyOptions& options);
// The registration's check_rows_face: every candidate serves RocksDB.
Status CheckRowsFace(const registry::AnyOptions& options);
// The registration's check_write_buffer_size: every candidate fits it.
Status CheckWriteBufferSize(const registry::AnyOptions& options, uint64_t write_buffer_size);

}  // namespace memrep::auto_rep
