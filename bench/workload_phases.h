// The timed phases of the workloads (workloads.h), one function each, and
// what they share. Private to the workload files.
#pragma once

#include "thread_runner.h"
#include "workload_ops.h"
#include "workloads.h"

namespace memrep::bench {

Measurement FillSeqPhase(BenchRep& rep, const WorkloadInput& in);
Measurement FillRandomPhase(BenchRep& rep, const WorkloadInput& in);
Measurement ConcurrentFillPhase(BenchRep& rep, const WorkloadInput& in, uint32_t threads);
Measurement OverwritePhase(BenchRep& rep, const WorkloadInput& in);
Measurement ReadRandomPhase(BenchRep& rep, const WorkloadInput& in, uint32_t threads);
Measurement ReadSeqPhase(BenchRep& rep, const WorkloadInput& in, uint32_t threads);
Measurement SeekRandomPhase(BenchRep& rep, const WorkloadInput& in, uint32_t threads);
// 1 writer + threads-1 readers: Gets (seeks == false) or Seek+Nexts.
Measurement MixedPhase(BenchRep& rep, const WorkloadInput& in, uint32_t threads, bool seeks);

// Runs `body` on `threads` threads with the input's sampling and progress.
ThreadRun RunTimed(const WorkloadInput& in, uint32_t threads, uint64_t expected_ops,
                   uint32_t progress_threads,
                   const std::function<void(uint32_t, ThreadStats&)>& body);

// Adds the ops and latency samples of threads [first, first + count) to *m,
// and sets threads, seconds and micros_per_op from `run`.
void Collect(ThreadRun& run, uint32_t first, uint32_t count, Measurement* m);

// Records memory after a timed phase: `entries` are in the rep.
void MeasureMemory(BenchRep& rep, uint64_t entries, Measurement* m);

// Fails *m with the checker's message, if it has one.
void TakeFailure(const Checker& checker, Measurement* m);

// Fails *m with `s`, if it is not OK; prefixed with `when`.
void TakeStatus(const Status& s, const std::string& when, Measurement* m);

// Checks that the rep holds the data set and nothing else, untimed.
Status VerifyDataSet(BenchRep& rep, const WorkloadInput& in);

}  // namespace memrep::bench
