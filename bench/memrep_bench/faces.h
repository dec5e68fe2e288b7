// The faces a workload drives a rep through. The timed phases
// (workload_phases.h) are templates over a face, so each workload is written
// once for all; for the rep level every call below is inline or the very
// call the phases made before there were faces.
//
//   RepFace    rocksdb::MemTableRep of a BenchRep (here): rows written into
//              memory the rep's Allocate hands out, InsertKey[Concurrently],
//              Get with RocksDB's callback, GetIterator. Every rep.
//   TableFace  memrep::MemTable (standalone_face.h): Put, Write of a batch,
//              Get (which copies the value), NewIterator. memrep's reps only.
//   TrieTableFace  memrep::TrieTable (trie_table_face.h): Reader and Cursor
//              only, for the read workloads (RunReadPhaseOn).
//
// What a face offers (each object below is used by one thread):
//
//   Face::Writer w(face, in, concurrent)
//       bool w.Put(key_number, seq)            false: the face refused it
//       bool w.PutBatch(key_indexes)           key 2j with seq j+1 for each j, in order
//       std::string w.Refusal(what)            why the last Put/PutBatch returned false
//   Face::Reader r(face, in)
//       GetResult r.Get(key_number)            at the newest snapshot
//       r.GetBatch(key_numbers, out)           out[i] for key_numbers[i], in one call
//   Face::Cursor c(face, in)                   an iterator (SeekAndCheck, ScanCursorInOrder)
//       c.Renew()                              a new iterator, seeing every write so far
//       c.SeekToFirst(), c.Seek(key_number), c.Valid(), c.Next(), c.entry()
//   face.Freeze()                              read-only from now (--freeze_before_reads)
//   face.MeasureMemory(entries, &m)            memory after the timed phase
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "reps.h"
#include "workload_ops.h"
#include "workloads.h"

namespace memrep::bench {

class RepFace {
 public:
  explicit RepFace(BenchRep& rep) : rep_(rep) {}

  class Writer {
   public:
    Writer(RepFace& face, const WorkloadInput& in, bool concurrent)
        : inserter_(face.rep_.rep(), *in.keys, *in.values, concurrent), concurrent_(concurrent) {}
    bool Put(uint64_t key_number, SequenceNumber seq) { return inserter_.Put(key_number, seq); }
    // RocksDB's MemTable inserts a WriteBatch's records one row at a time
    // (MemTableRep has no batch insert): so does the rep level.
    bool PutBatch(std::span<const uint32_t> key_indexes) {
      for (const uint32_t j : key_indexes) {
        if (!inserter_.Put(2 * uint64_t{j}, j + uint64_t{1})) return false;
      }
      return true;
    }
    std::string Refusal(const std::string& what) const {
      return std::string(concurrent_ ? "InsertKeyConcurrently" : "InsertKey") + " refused " + what +
             " as a duplicate";
    }

   private:
    Inserter inserter_;
    bool concurrent_;
  };

  class Reader : public PointReader {
   public:
    Reader(RepFace& face, const WorkloadInput& in)
        : PointReader(face.rep_.rep(), *in.keys, *in.values) {}
    // RocksDB's MemTableRep has no batch read: RocksDB's MemTable::MultiGet
    // calls Get per key, and so does the rep level.
    void GetBatch(std::span<const uint32_t> key_numbers, GetResult* out) {
      for (size_t i = 0; i < key_numbers.size(); ++i) out[i] = Get(key_numbers[i]);
    }
  };

  class Cursor : public RowCursor {
   public:
    Cursor(RepFace& face, const WorkloadInput& in) : RowCursor(face.rep_.rep(), *in.keys) {}
  };

  void Freeze() { rep_.rep().MarkReadOnly(); }

  // Arena bytes handed out + ApproximateMemoryUsage (BenchRep::MemoryBytes).
  void MeasureMemory(uint64_t entries, Measurement* m) {
    m->entries = entries;
    m->memory_bytes = rep_.MemoryBytes();
    m->arena_reserved_bytes = rep_.arena().BytesReserved();
  }

 private:
  BenchRep& rep_;
};

}  // namespace memrep::bench
