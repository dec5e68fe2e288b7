// memrep.Auto's learned_file: what the lineages of a database learned (each
// rep's measured costs, and the rep each settled on), kept across a reopen.
//
// One small text file holds a section per lineage id (the RocksDB face: the
// column family id), under a header that names the format and the machine:
//
//   memrep.Auto learned 1
//   machine <CPU model>, <n> cpus
//   lineage <id> settled <rep or ->
//   cost <id> <rep> <operation> <ns> <timed calls>
//   ...
//   end <FNV-1a 64 of every line above, hex>
//
// A file that cannot be parsed or whose checksum differs is corrupt; one of
// another format or machine is foreign: both are ignored (the lineage starts
// afresh, and the next save replaces the file). Saving rewrites the file
// with this lineage's section replaced and the others kept, through a
// temporary file renamed over it, under a process-wide mutex.
#pragma once

#include <cstdint>
#include <string>

#include "auto/cost_book.h"
#include "memrep/status.h"

namespace memrep::auto_rep {

struct Learned {
  std::string settled;  // "" if none
  CostBook book;
};

// This machine, as the header names it.
std::string MachineFingerprint();

// The section of lineage `id` in `path`. NotFound: no file, or no section
// for `id`. Corruption: the file is corrupt. InvalidArgument: it is of
// another format or machine. Each message says which and why.
Status LoadLearned(const std::string& path, uint32_t id, Learned* out);

// Writes lineage `id`'s section into `path`, keeping the other lineages'
// sections of a valid file. IOError saying what failed.
Status SaveLearned(const std::string& path, uint32_t id, const Learned& learned);

}  // namespace memrep::auto_rep
