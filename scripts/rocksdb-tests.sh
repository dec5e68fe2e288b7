#!/usr/bin/env bash
# RocksDB's own gtest DB tests (db_flush_test, db_test2, ...) with every
# registered rep in place of the default memtable, beside the skip list.
# Builds what it needs the first time:
#   1. the release build's plugin and memrep_bench (which lists the reps);
#   2. the source of the installed librocksdb (scripts/rocksdb-source.sh),
#      copied into build/rocksdb-tests/ and patched with
#      tests/rocksdb_tests/patches/: with MEMREP_TEST_MEMTABLE=<factory
#      string>, RocksDB's test harness gives every Options still holding the
#      default skip list a factory made from that string, and aborts when the
#      string makes none;
#   3. the test binaries the run needs (tests/rocksdb_tests/CMakeLists.txt),
#      against the shared librocksdb.
# A second run rebuilds nothing. Then tests/rocksdb_tests/run.py runs each
# binary's tests in shards, two processes at a time, once with the skip list
# and once per rep, the plugin preloaded.
#
# Usage: bash scripts/rocksdb-tests.sh [--long] [run.py options]
#   (default)  the CI subset (tests/rocksdb_tests/suites.py, CI), as
#              scripts/test.sh's rocksdbtests lane runs it
#   --long     every test of db_basic, db_iterator, db_merge_operator,
#              db_inplace_update, db_memtable, db_range_del, db_flush, db_test2,
#              db_write and column_family
#   --reps a,b --tests db_flush_test --filter 'DBFlushTest.MemPurge*'
#              some reps (the skip list runs too unless --no-control), some
#              binaries, a gtest filter; --timeout S, --jobs N, --shard N
# Results: build/rocksdb-tests/results.md (per rep: passed, failed, the
# failing tests with their first failure lines), results.json, and the logs
# of shards that did not pass in build/rocksdb-tests/logs/<rep>/. Exit status
# 1 when a test that passes with the skip list fails with a rep, unless
# tests/rocksdb_tests/refusals.txt lists it. docs/testing.md says more.
set -euo pipefail
cd "$(dirname "$0")/.."

long=0
tests=""
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --long) long=1; args+=("$1") ;;
    --tests) tests=$2; args+=("$1" "$2"); shift ;;
    --tests=*) tests=${1#--tests=}; args+=("$1") ;;
    *) args+=("$1") ;;
  esac
  shift
done

bash scripts/install-deps.sh
jobs=$(nproc)
out=$PWD/build/rocksdb-tests

# 1. The plugin and the rep list.
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs" --target memrep_rocksdb memrep_bench

# 2. The installed library's source (unpacked once for the stress lane too),
#    copied and patched for the tests. cp -a keeps the files' times, so a
#    new patch rebuilds only what it touches.
stress_src=$(bash scripts/rocksdb-source.sh)
src=$out/$(basename "$stress_src")
stamp=$(cat tests/rocksdb_tests/patches/*.patch | sha256sum | cut -c1-16)
if [[ ! -f $src/.memrep-tests-patched-$stamp ]]; then
  rm -rf "$src"
  mkdir -p "$out"
  cp -a "$stress_src" "$src"
  for p in tests/rocksdb_tests/patches/*.patch; do
    patch -d "$src" -p1 -s --no-backup-if-mismatch < "$p"
  done
  touch "$src/.memrep-tests-patched-$stamp"
fi

# 3. The binaries this run needs.
if [[ -z $tests ]]; then
  tests=$(cd tests/rocksdb_tests && python3 -c \
    "import suites; print(','.join(suites.LONG if $long else suites.CI))")
fi
cmake -S tests/rocksdb_tests -B "$out/build" -G Ninja -DROCKSDB_SOURCE_DIR="$src" >/dev/null
cmake --build "$out/build" -j "$jobs" --target ${tests//,/ }

# 4. The tests, for the skip list and every rep.
python3 tests/rocksdb_tests/run.py --bin_dir "$out/build" \
  --plugin build/release/rocksdb/libmemrep_rocksdb.so --memrep_bench build/release/bench/memrep_bench \
  --refusals tests/rocksdb_tests/refusals.txt --out "$out" "${args[@]}"
