#!/usr/bin/env bash
# Every test of memrep, as CI runs it: installs what is missing, then runs
# these lanes:
#   format      clang-format: every C++ file is formatted as .clang-format says
#   release     the library, the RocksDB plugin, examples, benchmark smoke tests
#   install     cmake --install of the release build into a temporary prefix, then
#               consumers built with find_package(memrep) (one per target) and pkg-config;
#               memrep as a subproject builds its libraries only
#   standalone  the standalone face alone, built without RocksDB, with clang:
#               -Wthread-safety (the locking annotations), -Werror and assertions;
#               its tests run
#   rocksdb9    memrep inside RocksDB 9.10's own build (Debian 13's source): RocksDB's
#               CMake configured with ROCKSDB_PLUGINS=memrep, memrep's RocksDB face and
#               RocksDB's registrar table compiled with RocksDB's flags
#               (scripts/rocksdb-intree.sh 9.10 --compile-only; the whole build and its
#               tests: scripts/rocksdb-intree.sh, docs/rocksdb.md)
#   rocksdb11   the same in RocksDB 11.8.1's own build (the newest release, the
#               rocksdb/ tree of the Rust registry's librocksdb-sys 0.19.0, fetched
#               with cargo: scripts/rocksdb-intree.sh 11.8 --compile-only)
#   tsan        ThreadSanitizer, with assertions: everything, the stress tests included,
#               but five single-threaded suites of the RocksDB differential test
#               (tests/CMakeLists.txt; the release and asan lanes run them)
#   asan        AddressSanitizer + UndefinedBehaviorSanitizer, with assertions: everything,
#               built with clang, so -Wthread-safety and -Werror check every target
#   stress      RocksDB's db_stress and crash test over every rep (scripts/stress.sh's
#               short lane: builds db_stress from the installed library's source once)
#   rocksdbtests RocksDB's own gtest DB tests (db_flush_test, db_test2, ...) with every rep
#               substituted for the default memtable, beside the skip list: the CI subset
#               of scripts/rocksdb-tests.sh (builds the tests from the installed library's
#               source once; --long there runs all of them)
#   fuzz        libFuzzer targets for option strings and operation sequences, a short run
#               over their corpora (scripts/fuzz.sh)
# Usage: bash scripts/test.sh [lane...]     (default: all of them, in this order)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

# The lanes leave the system's apt configuration as they found it (source
# packages come through a private configuration under build/: docs/testing.md,
# "Source packages"); checked after every lane.
apt_config() { find /etc/apt -type f -print0 | sort -z | xargs -0 -r sha256sum; }
apt_before=$(apt_config)

lanes=("$@")
[[ ${#lanes[@]} -eq 0 ]] && lanes=(format release install standalone rocksdb9 rocksdb11 tsan asan stress rocksdbtests fuzz)
jobs=$(nproc)

# Builds and runs a CMake preset's tests.
build_and_test() {
  local lane=$1
  cmake --preset "$lane" >/dev/null
  cmake --build --preset "$lane" -j "$jobs"
  ctest --preset "$lane" -j "$jobs"
}

for lane in "${lanes[@]}"; do
  echo "=== lane: $lane ==="
  start=$SECONDS
  case "$lane" in
    format)
      mapfile -t files < <(git ls-files '*.cc' '*.h')
      clang-format --dry-run --Werror "${files[@]}"
      echo "${#files[@]} files formatted as .clang-format says" ;;
    install)
      # The release lane's build, installed and used from outside.
      cmake --preset release >/dev/null
      cmake --build --preset release -j "$jobs"
      prefix=$(mktemp -d)
      trap 'rm -rf "$prefix"' EXIT
      cmake --install build/release --prefix "$prefix" >/dev/null
      cmake -S tests/install -B "$prefix/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
      cmake --build "$prefix/consumer" -j "$jobs"
      for program in standalone_shared standalone_static plugin_shared plugin_static; do
        "$prefix/consumer/$program"
      done
      export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
      # shellcheck disable=SC2046  # pkg-config's flags are meant to split
      c++ tests/install/standalone.cc -o "$prefix/pc_standalone" $(pkg-config --cflags --libs memrep)
      # shellcheck disable=SC2046
      c++ tests/install/plugin.cc -o "$prefix/pc_plugin" $(pkg-config --cflags --libs memrep-rocksdb)
      LD_LIBRARY_PATH="$prefix/lib" "$prefix/pc_standalone"
      LD_LIBRARY_PATH="$prefix/lib" "$prefix/pc_plugin"
      # As another project's subdirectory: libraries only (configured, not built).
      cmake -S tests/subproject -B "$prefix/subproject" -G Ninja -DMEMREP_SOURCE_DIR="$PWD" \
        | grep "memrep as a subproject"
      rm -rf "$prefix"
      trap - EXIT ;;
    tsan)
      # halt_on_error: a race fails the lane instead of scrolling by.
      # ignore_noninstrumented_modules: memset/memcpy called from inside
      # Debian's uninstrumented libstdc++ and librocksdb are not checked (see
      # tests/tsan.supp for why); memrep's own code is instrumented and is.
      export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1 suppressions=$PWD/tests/tsan.supp"
      build_and_test tsan ;;
    asan)
      export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      build_and_test asan ;;
    release|standalone)
      build_and_test "$lane" ;;
    rocksdb9)
      bash scripts/rocksdb-intree.sh 9.10 --compile-only ;;
    rocksdb11)
      bash scripts/rocksdb-intree.sh 11.8 --compile-only ;;
    stress)
      bash scripts/stress.sh ;;
    rocksdbtests)
      bash scripts/rocksdb-tests.sh ;;
    fuzz)
      bash scripts/fuzz.sh ;;
    *)
      echo "unknown lane '$lane'; lanes: format release install standalone rocksdb9 rocksdb11 tsan asan stress rocksdbtests fuzz" >&2
      exit 2 ;;
  esac
  unset TSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS
  if [[ $(apt_config) != "$apt_before" ]]; then
    echo "lane $lane changed the system's apt configuration under /etc/apt:" >&2
    diff <(echo "$apt_before") <(apt_config) >&2 || true
    exit 1
  fi
  echo "=== lane $lane passed in $((SECONDS - start)) s ==="
done
echo "=== all lanes passed: ${lanes[*]} ==="
