// memrep_phased's runs: one database per rep and round, in a fresh
// directory, through the four phases, timed and checked.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "flags.h"
#include "reps.h"

namespace memrep::phased {

struct PhaseFigures {
  double seconds = 0;
  uint64_t ops = 0;            // Puts, Gets and scans of the phase's timed thread(s)
  uint64_t reader_gets = 0;    // the reader threads' Gets (readers, serve)
  uint64_t reader_scans = 0;   // the reader threads' scans (serve)
  uint64_t switches = 0;       // memtables sealed during the phase
  uint64_t last_memtable = 0;  // memrep.Auto: memtables made by the phase's end
};

struct RunFigures {
  std::vector<PhaseFigures> phases;    // Flags::phases's, in order
  std::map<uint64_t, Choice> choices;  // memrep.Auto's, by memtable index
  double total() const {
    double sum = 0;
    for (const PhaseFigures& p : phases) sum += p.seconds;
    return sum;
  }
};

// The scenario's phases of `spec` against one database in a fresh directory under
// `parent`, removed (DestroyDB, then the directory) when the run is over. On
// failure, `error` says which phase and key.
bool RunInFreshDir(const Flags& flags, const std::string& spec, const std::string& parent,
                   RunFigures* figures, std::string* error);

// The parent of the runs' directories: --db, or a fresh directory under /tmp.
// Removed at exit if empty (--db may hold other things).
class ParentDir {
 public:
  ParentDir() = default;
  ParentDir(const ParentDir&) = delete;
  ParentDir& operator=(const ParentDir&) = delete;
  ~ParentDir();

  bool Create(const std::string& db_flag, std::string* error);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace memrep::phased
