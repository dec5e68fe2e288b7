#!/usr/bin/env bash
# Every test of memrep, as CI runs it: installs what is missing, then builds
# and runs the test suite in four lanes:
#   release     the library, the RocksDB plugin, examples, benchmark smoke tests
#   standalone  the standalone face alone, built without RocksDB
#   tsan        ThreadSanitizer: everything, the stress tests included
#   asan        AddressSanitizer + UndefinedBehaviorSanitizer: everything
# Usage: bash scripts/test.sh [lane...]     (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

lanes=("$@")
[[ ${#lanes[@]} -eq 0 ]] && lanes=(release standalone tsan asan)
jobs=$(nproc)

for lane in "${lanes[@]}"; do
  echo "=== lane: $lane ==="
  cmake --preset "$lane" >/dev/null
  cmake --build --preset "$lane" -j "$jobs"
  case "$lane" in
    tsan)
      # halt_on_error: a race fails the lane instead of scrolling by.
      # ignore_noninstrumented_modules: memset/memcpy called from inside
      # Debian's uninstrumented libstdc++ and librocksdb are not checked (see
      # tests/tsan.supp for why); memrep's own code is instrumented and is.
      export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1 suppressions=$PWD/tests/tsan.supp"
      ctest --preset "$lane" -j "$jobs" ;;
    asan)
      export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      ctest --preset "$lane" -j "$jobs" ;;
    *)
      ctest --preset "$lane" -j "$jobs" ;;
  esac
  unset TSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS
done
echo "=== all lanes passed: ${lanes[*]} ==="
