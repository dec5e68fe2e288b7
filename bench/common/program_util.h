// Small helpers of the benchmark programs that run whole RocksDB databases
// (memrep_nimbus_import, memrep_phased): flags, medians, the load
// average, JSON strings, the keys' mixing function and durations in seconds.
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace memrep::bench_program {

// Splits on commas only: memrep options strings separate options with ';'.
inline std::vector<std::string> SplitCommas(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A plain decimal count, the whole text.
inline bool ParseCount(std::string_view text, uint64_t* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

// The string flags both programs take.
struct CommonFlags {
  std::vector<std::string>* reps;  // --reps, split on commas
  std::string* db;                 // --db
  std::string* json;               // --json
  // A program's own text flags: name, field.
  std::vector<std::pair<std::string_view, std::string*>> texts = {};
};

// Parses argv's "--name=value" flags: a count where count_of(name) gives its
// field (nullptr: not a count), or one of `common`. false with *error set on
// a bad flag, or with *error empty for --help or -h.
template <typename CountOf>
bool ParseFlags(int argc, char** argv, CountOf count_of, CommonFlags common, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *error = "";
      return false;
    }
    const size_t eq = arg.find('=');
    if (arg.substr(0, 2) != "--" || eq == std::string_view::npos) {
      *error = "expected --name=value, got '" + std::string(arg) + "'";
      return false;
    }
    const std::string_view name = arg.substr(2, eq - 2);
    const std::string_view value = arg.substr(eq + 1);
    if (uint64_t* count = count_of(name); count != nullptr) {
      if (!ParseCount(value, count)) {
        *error =
            "--" + std::string(name) + " takes a whole number, got '" + std::string(value) + "'";
        return false;
      }
    } else if (name == "reps") {
      *common.reps = SplitCommas(value);
    } else if (name == "db") {
      *common.db = value;
    } else if (name == "json") {
      *common.json = value;
    } else if (auto it = std::find_if(common.texts.begin(), common.texts.end(),
                                      [&](const auto& text) { return text.first == name; });
               it != common.texts.end()) {
      *it->second = value;
    } else {
      *error = "unknown flag --" + std::string(name);
      return false;
    }
  }
  return true;
}

// How a program ends after parsing its flags: -1 to go on; 0 after --help
// (the usage printed); 2 after a bad flag (the error printed as `program`'s).
inline int FlagsExit(bool parsed, const std::string& error, const char* program,
                     const char* usage) {
  if (parsed) return -1;
  if (error.empty()) {
    std::fputs(usage, stdout);
    return 0;
  }
  std::fprintf(stderr, "%s: %s\n(--help lists the flags)\n", program, error.c_str());
  return 2;
}

// The median of the values that are not NaN; NaN if there are none.
inline double Median(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// "1.23 0.98 0.75" from /proc/loadavg, or "unknown".
inline std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

// SplitMix64's finalizer: a bijection of 64-bit words.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// `text` as a JSON string literal.
inline std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace memrep::bench_program
