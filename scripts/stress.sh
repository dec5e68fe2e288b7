#!/usr/bin/env bash
# RocksDB's own stress and crash tests (db_stress, db_crashtest.py) over every
# registered rep, with the plugin loaded. Builds what it needs the first time:
#   1. the release build's plugin and memrep_bench (which lists the reps);
#   2. the source of the installed librocksdb (apt-get source through a
#      private apt configuration in build/apt/, scripts/rocksdb-source.sh;
#      the system's apt configuration is left as it is), unpacked into
#      build/stress/ and patched
#      with tests/stress/patches/ (what each patch does: tests/stress/README.md);
#   3. db_stress, from that source, against the shared librocksdb.
# A second run rebuilds nothing. Then tests/stress/stress.py runs the matrix.
#
# Usage: bash scripts/stress.sh [--long] [stress.py options]
#   (default)  the short lane, as scripts/test.sh runs it: the configurations
#              most likely to find a memtable bug, fitted into --budget seconds
#   --long     every configuration and crash mode, for every rep and skip_list,
#              then scripts/fuzz.sh --seconds 300 (when no other option narrows it)
#   e.g. --reps memrep.Vector --configs iterators,blackbox --control
# Results: build/stress/runs/<lane>/results.md (the table), logs of failures
# and backtraces of hangs beside it. docs/testing.md says more.
set -euo pipefail
cd "$(dirname "$0")/.."

lane=short
args=()
for arg in "$@"; do
  case "$arg" in
    --long) lane=long ;;
    *) args+=("$arg") ;;
  esac
done

bash scripts/install-deps.sh
jobs=$(nproc)
stress_dir=$PWD/build/stress

# 1. The plugin and the rep list.
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs" --target memrep_rocksdb memrep_bench

# 2. The source of exactly the installed library, patched.
src=$(bash scripts/rocksdb-source.sh)

# 3. db_stress (ninja: nothing to do the second time).
cmake -S tests/stress -B "$stress_dir/build" -G Ninja -DROCKSDB_SOURCE_DIR="$src" >/dev/null
cmake --build "$stress_dir/build" -j "$jobs"

# 4. The matrix. The short lane runs two at a time: its crash rounds last their
#    duration (30 s) whatever their share of the cores.
status=0
parallel=1
[[ $lane == short ]] && parallel=2
python3 tests/stress/stress.py --lane "$lane" --jobs "$parallel" \
  --db_stress "$stress_dir/build/db_stress" --crashtest "$src/tools/db_crashtest.py" \
  --plugin build/release/rocksdb/libmemrep_rocksdb.so --memrep_bench build/release/bench/memrep_bench \
  --out "$stress_dir/runs/$lane" "${args[@]}" || status=$?

# 5. The long lane fuzzes too: five minutes a target (the short lane's fuzzing
#    is scripts/test.sh's fuzz lane).
if [[ $lane == long && ${#args[@]} -eq 0 ]]; then
  bash scripts/fuzz.sh --seconds 300 || status=1
fi
exit $status
