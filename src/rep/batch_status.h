// The statuses of a refused record, and of a batch that stopped at a refused record: the record's
// index, why, and that the ones before it stay (Rep::AddBatch).
#pragma once

#include <cstdint>
#include <string>

#include "memrep/status.h"

namespace memrep::rep {

// A duplicate (user key, sequence) refused (contract point 4 of memrep/rep.h).
inline Status DuplicateRecordStatus(uint64_t sequence) {
  return Status::AlreadyExists("key already has a record with sequence " +
                               std::to_string(sequence));
}

inline Status BatchRecordStatus(size_t index, const Status& why) {
  return Status::FromCode(why.code(), "batch record " + std::to_string(index) + ": " +
                                          why.message() + "; the " + std::to_string(index) +
                                          " records before it were added");
}

}  // namespace memrep::rep
