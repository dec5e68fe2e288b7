"""The stress matrix's configurations: db_stress flags, named.

Every configuration runs for every registered rep and for skip_list, the
control. `short` marks the ones the short lane (scripts/test.sh) runs, in
this order of priority: those most likely to find a memtable bug. `est_s` is
about how long one run takes on 2 cores (memrep.SortedHash, load ~1): the
short lane fits its configurations into its time budget with it.

`known` marks a failure that is RocksDB 7.8.3's own, seen with the skip list
too (tests/stress/README.md lists them; the evidence is in
docs/results/2026-11-24-stress-long-run.md): its outcome is shown, control
and rep side by side, but does not fail the matrix.
"""

# Every run: a fresh database and expected state, verification at reopen,
# and no re-creation of column families (db_stress 7.8.3 crashes on it with
# every rep; see KNOWN below).
BASE = {
    "max_key": 100000,
    "column_families": 4,
    "threads": 4,
    "reopen": 2,
    "clear_column_family_one_in": 0,
    "write_buffer_size": 512 << 10,
    "value_size_mult": 32,
    "destroy_db_initially": 1,
}

# The operation mix has to add up to 100: read, prefix, write, delete,
# delete-range, iterate.
def mix(read, prefix, write, delete, delrange, iterate):
    assert read + prefix + write + delete + delrange + iterate == 100
    return {"readpercent": read, "prefixpercent": prefix, "writepercent": write,
            "delpercent": delete, "delrangepercent": delrange, "iterpercent": iterate}


CONFIGS = [
    dict(name="threads16_readers", short=True, est_s=15,
         doc="16 threads on a small memtable: each writes concurrently and reads it with Gets "
             "and iterators (db_stress gives every thread one mix; tests/stress_test.cc has "
             "threads that only read beside writers)",
         flags={**mix(35, 0, 35, 5, 0, 25), "threads": 16, "allow_concurrent_memtable_write": 1,
                "verify_iterator_with_expected_state_one_in": 5, "prefix_size": -1,
                "ops_per_thread": 20000}),
    dict(name="threads8_wal", short=True, est_s=15,
         doc="8 threads writing concurrently into the memtable, with the WAL",
         flags={"threads": 8, "allow_concurrent_memtable_write": 1, "ops_per_thread": 40000}),
    dict(name="many_flushes", short=True, est_s=12,
         doc="a 128 KiB write buffer: hundreds of memtables switched, flushed and dropped",
         flags={"write_buffer_size": 128 << 10, "max_write_buffer_number": 4,
                "target_file_size_base": 1 << 20, "ops_per_thread": 60000}),
    dict(name="iterators", short=True, est_s=11,
         doc="iterator-heavy, no prefix extractor, iterators checked against the expected state",
         flags={**mix(10, 0, 35, 10, 5, 40), "prefix_size": -1,
                "verify_iterator_with_expected_state_one_in": 5, "ops_per_thread": 50000}),
    dict(name="delrange_merge", short=True, est_s=13,
         doc="range deletions with a merge operator",
         flags={**mix(20, 10, 35, 10, 10, 15), "use_merge": 1, "ops_per_thread": 50000}),
    dict(name="batches_snapshots", short=True, est_s=30,
         doc="--test_batches_snapshots=1: batched writes read back at snapshots",
         flags={"test_batches_snapshots": 1, "prefix_size": 7, "ops_per_thread": 8000}),
    dict(name="defaults_reopen", short=False, est_s=16,
         doc="db_stress's defaults with 5 reopens",
         flags={"reopen": 5, "ops_per_thread": 80000}),
    dict(name="threads8_nowal", short=False, est_s=8,
         doc="8 threads writing concurrently, no WAL (atomic flush, as the crash test pairs them)",
         flags={"threads": 8, "allow_concurrent_memtable_write": 1, "disable_wal": 1,
                "atomic_flush": 1, "reopen": 0, "ops_per_thread": 40000}),
    dict(name="inplace_update", short=False, est_s=11,
         doc="--in_place_update: RocksDB writes into the row the rep's Get found (no iterators)",
         flags={**mix(40, 0, 45, 15, 0, 0), "in_place_update": 1,
                "allow_concurrent_memtable_write": 0, "ops_per_thread": 80000}),
    dict(name="write_buffer_manager", short=False, est_s=17,
         doc="a write buffer manager with a 1 MiB limit over every column family",
         flags={"db_write_buffer_size": 1 << 20, "write_buffer_size": 4 << 20,
                "ops_per_thread": 60000}),
    dict(name="atomic_flush", short=False, est_s=12,
         doc="atomic flush of every column family",
         flags={"atomic_flush": 1, "ops_per_thread": 60000}),
    dict(name="mempurge_3buffers", short=False, est_s=12,
         doc="mempurge (--experimental_mempurge_threshold=5) with 3 write buffers of 256 KiB",
         flags={"experimental_mempurge_threshold": 5, "max_write_buffer_number": 3,
                "write_buffer_size": 256 << 10,
                "ops_per_thread": 60000}),
]

# RocksDB 7.8.3's own failures, run side by side so that a change shows.
KNOWN = [
    dict(name="mempurge_2buffers", short=False, est_s=12, timeout_s=60,
         known="RocksDB hang: a mempurge's output is an immutable memtable with no flush "
               "scheduled, and with 2 write buffers that is a stall that never ends",
         doc="mempurge with --max_write_buffer_number=2 (128 KiB)",
         flags={"experimental_mempurge_threshold": 5, "max_write_buffer_number": 2,
                "write_buffer_size": 128 << 10,
                "ops_per_thread": 60000}),
    dict(name="inplace_with_iterators", short=False, est_s=5,
         known="RocksDB: an in-place update changes a value under a live iterator",
         doc="--in_place_update with iterators",
         flags={**mix(30, 0, 40, 10, 0, 20), "in_place_update": 1,
                "allow_concurrent_memtable_write": 0, "ops_per_thread": 80000}),
    dict(name="clear_column_family", short=False, est_s=1,
         known="db_stress 7.8.3: a reader uses a dropped column family's freed handle",
         doc="--clear_column_family_one_in=100: column families dropped and re-created",
         flags={"clear_column_family_one_in": 100, "expected_values_dir": None,
                "ops_per_thread": 60000}),
]

# Crash rounds through db_crashtest.py (patched: keeps --memtablerep, fails
# on a verification error, ends with a verification run without kills).
CRASH = [
    dict(name="blackbox", short=True, est_s=45, mode="blackbox",
         doc="the process killed at random moments, then reopened and verified",
         flags={"duration": 30, "interval": 10, "ops_per_thread": 10000000}),
    dict(name="whitebox", short=False, est_s=150, mode="whitebox",
         doc="RocksDB kills itself at its kill points (--random_kill_odd=20000), then verifies",
         flags={"duration": 120, "random_kill_odd": 20000, "ops_per_thread": 5000}),
]

# The crash rounds' own fixed flags: small key space, no column family re-creation.
# (whitebox runs 100x ops_per_thread in its kill mode, until a kill point fires:
# 5000 keeps a round that no kill hits to about a minute.) No TTL or periodic
# compactions, which touch only SST files: RocksDB 9.10's last blackbox run
# waits for compactions to end when it opens the database, and with the
# driver's compaction_ttl=1 they never did (25,000 compactions of one L6 file
# in 9 minutes, with memrep.Trie; the memtable was not involved).
CRASH_BASE = {"max_key": 100000, "threads": 4, "clear_column_family_one_in": 0,
              "compaction_ttl": 0, "periodic_compaction_seconds": 0}
