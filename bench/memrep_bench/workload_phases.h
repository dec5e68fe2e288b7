// The timed phases of the workloads (workloads.h), one function each, and
// what they share. Private to the workload files. Each phase is a template
// over a face (faces.h), defined in its workloads_*.cc and instantiated there
// for both: RepFace (the rep level) and TableFace (the standalone face).
#pragma once

#include "faces.h"
#include "standalone_face.h"
#include "thread_runner.h"
#include "trie_table_face.h"
#include "workload_ops.h"
#include "workloads.h"

namespace memrep::bench {

template <class Face>
Measurement FillSeqPhase(Face& face, const WorkloadInput& in);
template <class Face>
Measurement FillRandomPhase(Face& face, const WorkloadInput& in);
// fillrandom's order in batches of --batch_size: Face::Writer::PutBatch.
template <class Face>
Measurement FillBatchPhase(Face& face, const WorkloadInput& in);
template <class Face>
Measurement ConcurrentFillPhase(Face& face, const WorkloadInput& in, uint32_t threads);
template <class Face>
Measurement OverwritePhase(Face& face, const WorkloadInput& in);
template <class Face>
Measurement ReadRandomPhase(Face& face, const WorkloadInput& in, uint32_t threads);
// readrandom's keys in batches of --batch_size: Face::Reader::GetBatch.
template <class Face>
Measurement MultiGetPhase(Face& face, const WorkloadInput& in, uint32_t threads);
template <class Face>
Measurement ReadSeqPhase(Face& face, const WorkloadInput& in, uint32_t threads);
template <class Face>
Measurement SeekRandomPhase(Face& face, const WorkloadInput& in, uint32_t threads);
// 1 writer + threads-1 readers: Gets (seeks == false) or Seek+Nexts.
template <class Face>
Measurement MixedPhase(Face& face, const WorkloadInput& in, uint32_t threads, bool seeks);
// N threads, each 4 Gets then 1 Put of a new version (concurrent Puts when N > 1).
template <class Face>
Measurement Mix8020Phase(Face& face, const WorkloadInput& in, uint32_t threads);

// The timed phase of `workload` on `face` as it is, then its checks.
template <class Face>
Measurement RunPhaseOn(const WorkloadInfo& workload, Face& face, const WorkloadInput& in);
// The same for a read workload (readrandom, readseq, seekrandom), for a face
// that offers only Reader and Cursor (a table's).
template <class Face>
Measurement RunReadPhaseOn(const WorkloadInfo& workload, Face& face, const WorkloadInput& in);

// Writes the data set (key numbers 2j, sequence j+1, in fill order). Untimed.
template <class Face>
Status FillDataSetOn(Face& face, const WorkloadInput& in);

// Checks that the rep holds the data set and nothing else, untimed.
template <class Face>
Status VerifyDataSet(Face& face, const WorkloadInput& in);

// Runs `body` on `threads` threads with the input's sampling and progress.
ThreadRun RunTimed(const WorkloadInput& in, uint32_t threads, uint64_t expected_ops,
                   uint32_t progress_threads,
                   const std::function<void(uint32_t, ThreadStats&)>& body);

// Adds the ops and latency samples of threads [first, first + count) to *m,
// and sets threads, seconds and micros_per_op from `run`.
void Collect(ThreadRun& run, uint32_t first, uint32_t count, Measurement* m);

// Fails *m with the checker's message, if it has one.
void TakeFailure(const Checker& checker, Measurement* m);

// Fails *m with `s`, if it is not OK; prefixed with `when`.
void TakeStatus(const Status& s, const std::string& when, Measurement* m);

}  // namespace memrep::bench
