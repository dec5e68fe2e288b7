// The reps the conformance suite runs against. A new rep joins every
// conformance test by adding its configurations here.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "memrep/rep.h"
#include "memrep/sorted_hash.h"

namespace memrep::testing {

struct RepConfig {
  std::string name;
  std::function<std::unique_ptr<Rep>(const RepContext&)> make;
};

inline std::vector<RepConfig> AllRepConfigs() {
  std::vector<RepConfig> configs;
  configs.push_back({"SortedHashDefault", [](const RepContext& c) {
                       return NewSortedHashRep(SortedHashOptions(), c);
                     }});
  // Tiny thresholds: many runs, background cuts and merges on every few
  // inserts, and iterators that seal their tails, even in small tests.
  configs.push_back({"SortedHashManyRuns", [](const RepContext& c) {
                       SortedHashOptions o;
                       o.bucket_count = 16;  // long chains
                       o.seal_threshold = 3;
                       o.background_cut = 5;
                       o.max_runs = 3;
                       return NewSortedHashRep(o, c);
                     }});
  // No background cut: iterators extend a shared, incrementally sorted tail
  // and publish it as a run at seal_threshold.
  configs.push_back({"SortedHashSharedTail", [](const RepContext& c) {
                       SortedHashOptions o;
                       o.seal_threshold = 300;
                       o.background_cut = 1 << 30;
                       o.max_runs = 4;
                       return NewSortedHashRep(o, c);
                     }});
  return configs;
}

}  // namespace memrep::testing
