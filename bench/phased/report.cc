#include "report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "common/program_util.h"
#include "reps.h"

namespace memrep::phased {

using bench_program::JsonString;
using bench_program::Median;

namespace {

// ---------------------------------------------------------------------------
// memrep.Auto's choices in one phase

struct AutoPhase {
  uint64_t first = 0;  // the phase's memtables: those made during it, [first, last]
  uint64_t last = 0;   // (the first phase's include the one made at DB::Open)
  std::vector<std::pair<std::string, uint64_t>> runs;  // rep, memtables in a row
  std::string from;       // the rep before the phase's first memtable, if that one switched
  uint64_t switches = 0;  // memtables of the phase whose rep differs from the one before
  int64_t settled = -1;   // switches up to the final run's start; -1: never settled
  uint64_t missing = 0;   // memtables whose decision was not seen
};

AutoPhase SummarizeAuto(const std::map<uint64_t, Choice>& choices, uint64_t first, uint64_t last) {
  AutoPhase phase;
  phase.first = first;
  phase.last = last;
  bool last_switched = false;
  for (uint64_t m = first; m <= last; ++m) {
    const auto it = choices.find(m);
    const std::string rep = it == choices.end() ? "?" : it->second.rep;
    last_switched = it != choices.end() && it->second.switched;
    if (it == choices.end()) ++phase.missing;
    if (last_switched) ++phase.switches;
    if (last_switched && m == first) {
      const auto before = choices.find(m - 1);
      phase.from = before == choices.end() ? "?" : before->second.rep;
    }
    if (phase.runs.empty() || phase.runs.back().first != rep) {
      phase.runs.emplace_back(rep, 0);
      phase.settled = static_cast<int64_t>(phase.switches);
    }
    ++phase.runs.back().second;
  }
  // A rep reached on the phase's last memtable is not known to be kept.
  if (phase.runs.empty() || (phase.runs.back().second == 1 && last_switched)) phase.settled = -1;
  return phase;
}

// Each phase's summary of one run.
std::vector<AutoPhase> AutoPhases(const RunFigures& figures) {
  std::vector<AutoPhase> phases;
  uint64_t first = 1;
  for (const PhaseFigures& p : figures.phases) {
    phases.push_back(SummarizeAuto(figures.choices, first, p.last_memtable));
    first = std::max(first, p.last_memtable + 1);
  }
  return phases;
}

// The phase's runs, "memrep.Vector×2 → memrep.Trie×21"; past kShownRuns runs,
// the first and last few, with how many were left out between (the JSON has all).
std::string Sequence(const AutoPhase& phase) {
  constexpr size_t kShownRuns = 12;
  if (phase.runs.empty()) return "no new memtable";
  std::string out = phase.from.empty() ? "" : "(from " + phase.from + ") ";
  const size_t n = phase.runs.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > kShownRuns && i == kShownRuns / 2) {
      out += " → … " + std::to_string(n - kShownRuns) + " more runs …";
      i += n - kShownRuns - 1;
      continue;
    }
    out += (i == 0 ? "" : " → ") + phase.runs[i].first + "×" + std::to_string(phase.runs[i].second);
  }
  return out;
}

std::string Settled(const AutoPhase& phase) {
  if (phase.runs.empty()) return "-";
  if (phase.settled < 0) return "never settled";
  return "settled after " + std::to_string(phase.settled) +
         (phase.settled == 1 ? " switch" : " switches");
}

std::string Format(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string JsonNumber(double value) {
  if (std::isnan(value) || std::isinf(value)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

std::string JsonAutoPhase(const AutoPhase& phase) {
  std::string out = "{\"first_memtable\": " + std::to_string(phase.first) +
                    ", \"last_memtable\": " + std::to_string(phase.last) +
                    ", \"from\": " + (phase.from.empty() ? "null" : JsonString(phase.from)) +
                    ", \"sequence\": [";
  for (size_t i = 0; i < phase.runs.size(); ++i) {
    out += std::string(i == 0 ? "" : ", ") + "{\"rep\": " + JsonString(phase.runs[i].first) +
           ", \"memtables\": " + std::to_string(phase.runs[i].second) + "}";
  }
  return out + "], \"switches\": " + std::to_string(phase.switches) +
         ", \"settled_after\": " + (phase.settled < 0 ? "null" : std::to_string(phase.settled)) +
         ", \"missing_decisions\": " + std::to_string(phase.missing) + "}";
}

std::string JsonRun(const Flags& flags, const RunRecord& run) {
  std::string out = "{\"round\": " + std::to_string(run.round) +
                    ", \"rep\": " + JsonString(flags.reps[run.rep]) + ", \"phases\": {";
  for (size_t p = 0; p < flags.phases.size(); ++p) {
    const PhaseFigures& f = run.figures.phases[p];
    out += std::string(p == 0 ? "" : ", ") + JsonString(kPhaseNames[flags.phases[p]]) +
           ": {\"seconds\": " + JsonNumber(f.seconds) + ", \"ops\": " + std::to_string(f.ops) +
           ", \"ops_per_s\": " + JsonNumber(static_cast<double>(f.ops) / f.seconds) +
           ", \"switches\": " + std::to_string(f.switches);
    if (HasReaders(flags.phases[p])) {
      out += ", \"reader_gets\": " + std::to_string(f.reader_gets) + ", \"reader_gets_per_s\": " +
             JsonNumber(static_cast<double>(f.reader_gets) / f.seconds);
    }
    if (flags.phases[p] == kServe) {
      out += ", \"reader_scans\": " + std::to_string(f.reader_scans) +
             ", \"reader_scans_per_s\": " +
             JsonNumber(static_cast<double>(f.reader_scans) / f.seconds);
    }
    out += "}";
  }
  out += "}, \"total_s\": " + JsonNumber(run.figures.total());
  if (IsAuto(flags.reps[run.rep])) {
    const std::vector<AutoPhase> phases = AutoPhases(run.figures);
    out += ", \"auto\": {";
    for (size_t p = 0; p < flags.phases.size(); ++p) {
      out += std::string(p == 0 ? "" : ", ") + JsonString(kPhaseNames[flags.phases[p]]) + ": " +
             JsonAutoPhase(phases[p]);
    }
    out += "}, \"decisions\": [";
    for (const auto& [memtable, choice] : run.figures.choices) {
      out += std::string(out.back() == '[' ? "" : ", ") +
             "{\"memtable\": " + std::to_string(memtable) + ", \"rep\": " + JsonString(choice.rep) +
             ", \"reason\": " + JsonString(choice.reason) + "}";
    }
    out += "]";
  }
  return out + "}";
}

std::string JsonMedians(const Flags& flags, const std::string& spec, const RepMedians& m) {
  std::string out = "{\"rep\": " + JsonString(spec) + ", \"phases\": {";
  for (size_t p = 0; p < flags.phases.size(); ++p) {
    out += std::string(p == 0 ? "" : ", ") + JsonString(kPhaseNames[flags.phases[p]]) +
           ": {\"seconds\": " + JsonNumber(m.seconds[p]) +
           ", \"ops_per_s\": " + JsonNumber(m.ops_per_s[p]) + "}";
  }
  return out + "}, \"reader_gets_per_s\": " + JsonNumber(m.reader_gets_per_s) +
         ", \"reader_scans_per_s\": " + JsonNumber(m.reader_scans_per_s) +
         ", \"total_s\": " + JsonNumber(m.total) +
         ", \"vs_best_fixed\": " + JsonNumber(m.vs_best_fixed) +
         ", \"vs_skip_list\": " + JsonNumber(m.vs_skip_list) + "}";
}

}  // namespace

std::vector<RepMedians> Medians(const Flags& flags, const std::vector<RunRecord>& runs) {
  std::vector<RepMedians> medians(flags.reps.size());
  for (size_t r = 0; r < medians.size(); ++r) {
    RepMedians& m = medians[r];
    for (size_t p = 0; p < flags.phases.size(); ++p) {
      std::vector<double> seconds, gets_per_s, scans_per_s;
      uint64_t ops = 0;
      for (const RunRecord& run : runs) {
        if (run.rep != r) continue;
        const PhaseFigures& figures = run.figures.phases[p];
        seconds.push_back(figures.seconds);
        ops = figures.ops;  // the same every round
        gets_per_s.push_back(static_cast<double>(figures.reader_gets) / figures.seconds);
        scans_per_s.push_back(static_cast<double>(figures.reader_scans) / figures.seconds);
      }
      m.seconds.push_back(Median(seconds));
      m.ops_per_s.push_back(static_cast<double>(ops) / m.seconds.back());
      m.total += m.seconds.back();
      if (HasReaders(flags.phases[p])) {
        m.reader_gets_per_s = Median(gets_per_s);
        if (flags.phases[p] == kServe) m.reader_scans_per_s = Median(scans_per_s);
      }
    }
  }
  double best_fixed = NAN, skip_list = NAN;
  for (size_t r = 0; r < medians.size(); ++r) {
    const double total = medians[r].total;
    if (!IsAuto(flags.reps[r]) && (std::isnan(best_fixed) || total < best_fixed)) {
      best_fixed = total;
    }
    if (flags.reps[r] == "skip_list") skip_list = medians[r].total;
  }
  for (RepMedians& m : medians) {
    m.vs_best_fixed = m.total / best_fixed;
    m.vs_skip_list = m.total / skip_list;
  }
  return medians;
}

void PrintRun(const Flags& flags, const std::string& label, const RunFigures& figures) {
  std::printf("%-32s", label.c_str());
  for (size_t p = 0; p < flags.phases.size(); ++p) {
    const PhaseFigures& f = figures.phases[p];
    std::printf(" %s %.2f s (%llu switches),", kPhaseNames[flags.phases[p]], f.seconds,
                static_cast<unsigned long long>(f.switches));
    if (HasReaders(flags.phases[p])) {
      std::printf(" reader gets/s %.0f,", static_cast<double>(f.reader_gets) / f.seconds);
    }
    if (flags.phases[p] == kServe) {
      std::printf(" reader scans/s %.0f,", static_cast<double>(f.reader_scans) / f.seconds);
    }
  }
  std::printf(" total %.2f s, all checks passed\n", figures.total());
  std::fflush(stdout);
}

void WarnFewSwitches(const Flags& flags, const std::string& label, const RunFigures& figures) {
  for (size_t p = 0; p < flags.phases.size(); ++p) {
    if (figures.phases[p].switches >= flags.switches_per_phase) continue;
    std::fprintf(stderr,
                 "memrep_phased: warning: %s: phase %s saw %llu memtable switches, fewer than "
                 "--switches_per_phase=%llu\n",
                 label.c_str(), kPhaseNames[flags.phases[p]],
                 static_cast<unsigned long long>(figures.phases[p].switches),
                 static_cast<unsigned long long>(flags.switches_per_phase));
  }
}

void PrintTable(const Flags& flags, const std::vector<RepMedians>& medians) {
  const bool serve =
      std::find(flags.phases.begin(), flags.phases.end(), kServe) != flags.phases.end();
  std::string header = "\n| rep |", rule = "|---|";
  for (Phase phase : flags.phases) {
    header += std::string(" ") + kPhaseNames[phase] + " s | " +
              (HasReaders(phase) ? "writer ops/s |" : "ops/s |");
    rule += "---:|---:|";
  }
  header += std::string(" reader gets/s |") + (serve ? " reader scans/s |" : "") +
            " total s | ÷ best fixed | ÷ skip_list |\n";
  rule += std::string(serve ? "---:|" : "") + "---:|---:|---:|---:|\n";
  std::printf("%s%s", header.c_str(), rule.c_str());
  for (size_t r = 0; r < medians.size(); ++r) {
    const RepMedians& m = medians[r];
    std::printf("| %s |", flags.reps[r].c_str());
    for (size_t p = 0; p < flags.phases.size(); ++p) {
      std::printf(" %s | %s |", Format(m.seconds[p], 3).c_str(), Format(m.ops_per_s[p], 0).c_str());
    }
    std::printf(" %s |", Format(m.reader_gets_per_s, 0).c_str());
    if (serve) std::printf(" %s |", Format(m.reader_scans_per_s, 0).c_str());
    std::printf(" %s | %s | %s |\n", Format(m.total, 3).c_str(), Format(m.vs_best_fixed, 2).c_str(),
                Format(m.vs_skip_list, 2).c_str());
  }
}

void PrintAuto(const Flags& flags, const std::vector<RunRecord>& runs) {
  for (const RunRecord& run : runs) {
    const std::string& spec = flags.reps[run.rep];
    if (!IsAuto(spec)) continue;
    std::printf("\n%s, round %llu: the reps of the memtables made in each phase\n", spec.c_str(),
                static_cast<unsigned long long>(run.round));
    const std::vector<AutoPhase> phases = AutoPhases(run.figures);
    for (size_t p = 0; p < flags.phases.size(); ++p) {
      const AutoPhase& phase = phases[p];
      const std::string missing =
          phase.missing == 0 ? "" : " (" + std::to_string(phase.missing) + " decisions not seen)";
      std::printf("  %-10s memtables %llu-%llu: %s; %s%s\n", kPhaseNames[flags.phases[p]],
                  static_cast<unsigned long long>(phase.first),
                  static_cast<unsigned long long>(phase.last), Sequence(phase).c_str(),
                  Settled(phase).c_str(), missing.c_str());
    }
  }
}

bool WriteJson(std::FILE* out, const Flags& flags, const std::vector<RunRecord>& runs,
               const std::vector<RepMedians>& medians, const std::string& load_start,
               const std::string& load_end) {
  std::string json = "{\"params\": {";
  for (const auto& [name, value] : Parameters(flags)) {
    if (json.back() != '{') json += ", ";
    json += JsonString(name) + ": " + std::to_string(value);
  }
  json += ", \"scenario\": " + JsonString(flags.scenario) +
          ", \"scan_iterator\": \"new per scan\"},\n \"loadavg_start\": " + JsonString(load_start) +
          ", \"loadavg_end\": " + JsonString(load_end) + ",\n \"runs\": [";
  for (size_t i = 0; i < runs.size(); ++i) {
    json += std::string(i == 0 ? "" : ",") + "\n  " + JsonRun(flags, runs[i]);
  }
  json += "],\n \"medians\": [";
  for (size_t r = 0; r < medians.size(); ++r) {
    json += std::string(r == 0 ? "" : ",") + "\n  " + JsonMedians(flags, flags.reps[r], medians[r]);
  }
  json += "]}\n";
  return std::fputs(json.c_str(), out) >= 0 && std::fflush(out) == 0;
}

void PrintHeader(const Flags& flags, const std::string& parent, const std::string& load_start) {
  std::printf("memrep_phased:");
  for (const auto& [name, value] : Parameters(flags)) {
    std::printf(" %s=%s", name, std::to_string(value).c_str());
  }
  std::string phases;
  for (Phase phase : flags.phases) {
    phases += std::string(phases.empty() ? "" : ", ") + kPhaseNames[phase] + " (" +
              kPhaseWhat[phase] + ")";
  }
  std::printf(
      " scenario=%s db=%s\n  phases: %s; WAL off, no compression, "
      "allow_concurrent_memtable_write=true\n",
      flags.scenario.c_str(), parent.c_str(), phases.c_str());
  std::printf("load average at start: %s\n", load_start.c_str());
  std::fflush(stdout);
}

}  // namespace memrep::phased
