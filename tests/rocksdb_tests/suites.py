"""Which of RocksDB's DB tests scripts/rocksdb-tests.sh runs.

LONG (--long): every test of these binaries. CI (the default, scripts/test.sh's
rocksdbtests lane): the tests that lean on the memtable most, as gtest
filters per binary, chosen to fit about 6-8 minutes on 2 cores for the skip
list and every rep, the build from a fresh clone included (docs/results/2026-11-29-ci-times.md
has the measured time). A binary absent from CI is not built by the default.
"""

LONG = [
    "db_basic_test", "db_iterator_test", "db_merge_operator_test", "db_inplace_update_test",
    "db_memtable_test", "db_range_del_test", "db_flush_test", "db_test2",
    "db_write_test", "column_family_test",
]

CI = {
    # The memtable's own tests: duplicates, concurrent merges, insert hints,
    # the column family id a factory is handed.
    "db_memtable_test": "*",
    # Flushes of every kind a memtable goes through: atomic flush of several
    # column families (triggered by a full memtable too), mempurge (a flush
    # into a new memtable), manual and background flushes, flush of what a
    # reader still iterates.
    "db_flush_test": "*",
    # Shared write buffers (db_write_buffer_size, a WriteBufferManager with
    # and without a cache) across column families and databases, the first
    # snapshot, a dictionary trained from the memtable's data.
    "db_test2": ":".join([
        "DBTestSharedWriteBufferAcrossCFs/*",
        "DBTest2.SharedWriteBufferLimitAcrossDB",
        "DBTest2.TestWriteBufferNoLimitWithCache",
        "DBTest2.FirstSnapshotTest",
        "DBTest2.PresetCompressionDict",
        "DBTest2.MaxSuccessiveMergesChangeWithDBRecovery",
        "DBTest2.MaxSuccessiveMergesInRecovery",
        "DBTest2.MemtableOnlyIterator",
        "DBTest2.WalFilterTest*",
        "DBTest2.IteratorPinnedMemory",
        "DBTest2.DuplicateSnapshot",
        "DBTest2.ReadCallbackTest",
        "DBTest2.GetLatestSeqAndTsForKey",
    ]),
    # Range deletions in the memtable, and the tests that open a column family
    # with a custom comparator (rocksdb.Uint64Comparator).
    "db_range_del_test": "*",
}
