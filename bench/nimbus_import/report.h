// memrep_nimbus_import's output: the medians' table and the JSON document
// (--json).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "flags.h"
#include "import.h"

namespace memrep::nimbus_import {

struct RunRecord {
  uint64_t run;
  size_t rep;
  Figures figures;
};

// `value` with `decimals` decimals; `nan_text` for NaN.
std::string Format(double value, int decimals, const char* nan_text);

// Each figure's median over the runs of each rep.

std::vector<Figures> Medians(size_t rep_count, const std::vector<RunRecord>& runs);

// The medians as a Markdown table.
void PrintTable(const std::vector<Rep>& reps, const std::vector<Figures>& medians);

// The whole JSON document to `out`; false if it could not be written.
bool WriteJson(std::FILE* out, const Flags& flags, const std::vector<Rep>& reps,
               const std::vector<RunRecord>& runs, const std::vector<Figures>& medians,
               const std::string& load_start, const std::string& load_end);

}  // namespace memrep::nimbus_import
