#include "report.h"

#include <cmath>
#include <iterator>

#include "common/program_util.h"

namespace memrep::nimbus_import {

using bench_program::JsonString;
using bench_program::Median;

namespace {

struct Column {
  const char* json_name;
  const char* heading;
  double Figures::*member;
  int decimals;
};
constexpr Column kColumns[] = {
    {"import_s", "import s", &Figures::import_s, 2},
    {"import_flush_s", "import+flush s", &Figures::import_flush_s, 2},
    {"persist_p50_ms", "persist p50 ms", &Figures::persist_p50_ms, 2},
    {"persist_p99_ms", "p99 ms", &Figures::persist_p99_ms, 2},
    {"persist_max_ms", "max ms", &Figures::persist_max_ms, 2},
    {"flushes", "flushes", &Figures::flushes, 0},
    {"flush_s", "flush s (sum)", &Figures::flush_s, 2},
    {"stall_s", "stall s", &Figures::stall_s, 2},
    {"recent_reads_per_s", "recent reads/s", &Figures::recent_reads_per_s, 0},
    {"first_read_ms", "first read ms", &Figures::first_read_ms, 3},
};

std::string JsonFigures(const Figures& figures) {
  std::string out;
  for (const Column& column : kColumns) {
    if (!out.empty()) out += ", ";
    out +=
        std::string("\"") + column.json_name + "\": " + Format(figures.*column.member, 6, "null");
  }
  return out;
}

}  // namespace

std::string Format(double value, int decimals, const char* nan_text) {
  if (std::isnan(value)) return nan_text;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::vector<Figures> Medians(size_t rep_count, const std::vector<RunRecord>& runs) {
  std::vector<Figures> medians(rep_count);
  for (size_t r = 0; r < rep_count; ++r) {
    for (const Column& column : kColumns) {
      std::vector<double> values;
      for (const RunRecord& record : runs) {
        if (record.rep == r) values.push_back(record.figures.*column.member);
      }
      medians[r].*column.member = Median(values);
    }
  }
  return medians;
}

void PrintTable(const std::vector<Rep>& reps, const std::vector<Figures>& medians) {
  std::printf("\n| rep |");
  for (const Column& column : kColumns) std::printf(" %s |", column.heading);
  std::printf("\n|---|");
  for (size_t c = 0; c < std::size(kColumns); ++c) std::printf("---:|");
  std::printf("\n");
  for (size_t r = 0; r < reps.size(); ++r) {
    std::printf("| %s |", reps[r].spec.c_str());
    for (const Column& column : kColumns) {
      std::printf(" %s |", Format(medians[r].*column.member, column.decimals, "-").c_str());
    }
    std::printf("\n");
  }
}

bool WriteJson(std::FILE* out, const Flags& flags, const std::vector<Rep>& reps,
               const std::vector<RunRecord>& runs, const std::vector<Figures>& medians,
               const std::string& load_start, const std::string& load_end) {
  std::string json = "{\"params\": {";
  for (const auto& [name, value] : Parameters(flags)) {
    if (json.back() != '{') json += ", ";
    json += JsonString(name) + ": " + std::to_string(value);
  }
  json += "},\n \"loadavg_start\": " + JsonString(load_start) +
          ", \"loadavg_end\": " + JsonString(load_end) + ",\n \"runs\": [";
  for (size_t i = 0; i < runs.size(); ++i) {
    json += std::string(i == 0 ? "" : ",") + "\n  {\"run\": " + std::to_string(runs[i].run) +
            ", \"rep\": " + JsonString(reps[runs[i].rep].spec) + ", " +
            JsonFigures(runs[i].figures) + "}";
  }
  json += "],\n \"medians\": [";
  for (size_t r = 0; r < reps.size(); ++r) {
    json += std::string(r == 0 ? "" : ",") + "\n  {\"rep\": " + JsonString(reps[r].spec) + ", " +
            JsonFigures(medians[r]) + "}";
  }
  json += "]}\n";
  return std::fputs(json.c_str(), out) >= 0 && std::fflush(out) == 0;
}

}  // namespace memrep::nimbus_import
