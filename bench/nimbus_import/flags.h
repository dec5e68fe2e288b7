// memrep_nimbus_import's command line, and the fixed shape of its records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memrep::nimbus_import {

constexpr size_t kKeySize = 32;          // a hash, as an Ethereum client's keys are
constexpr size_t kValueSize = 100;       // bytes of every value
constexpr uint64_t kRecentBatches = 10;  // the reads pick keys of this many last batches

struct Flags {
  uint64_t records = 5000000;
  uint64_t batch = 5000;
  std::vector<std::string> reps = {"skip_list", "vector", "memrep.Vector", "memrep.SortedHash"};
  std::string db = "/tmp/memrep_nimbus";
  uint64_t runs = 3;
  uint64_t read_every = 10;
  uint64_t reads = 1000;
  uint64_t write_buffer_size = 64 << 20;
  uint64_t seed = 0;
  std::string json;
};

extern const char* const kUsage;

// Fills `flags` from argv. On a bad flag, returns false with `error` set
// ("" for --help).
bool ParseFlags(int argc, char** argv, Flags* flags, std::string* error);

// The numeric parameters, in the order they are printed and written.
std::vector<std::pair<const char*, uint64_t>> Parameters(const Flags& flags);

}  // namespace memrep::nimbus_import
