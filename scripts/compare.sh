#!/usr/bin/env bash
# The main job: which rep for which workload on this machine (8.7 minutes on
# a 2-core VM at load average 5-8 from a fresh clone, build included). Runs the matrix's quick mode
# (bench/matrix/matrix.py) over every registered rep and memrep.Auto, at the
# rep level (memrep_bench) and through Debian's db_bench, at 1 thread and at
# the core count, then memrep_phased for what memrep.Auto chooses when its
# memtables switch, and ends with a summary of at most 40 lines: reps x
# workload classes as ratios to the base, the best rep per class, where each
# rep loses, Auto's choices, and the report's path (build/report/benchmarks.md,
# figures in build/report/img/). Progress goes to stderr.
#
# The base is RocksDB's skip list compiled without assertions (Debian builds
# librocksdb with them, which slows its skip list by up to 2.7x): the first run
# fetches the installed librocksdb's source (scripts/rocksdb-source.sh, about
# 10 s) and builds everything in build/peers, the build scripts/peers.sh
# makes, so the peers configured there (--topling-zip, --columnar-memtable)
# join too. Where the source cannot be fetched, it builds the release preset
# and the base is Debian's skip_list (the summary says which).
#
# Usage: bash scripts/compare.sh [matrix.py flags, e.g. --repeats 3 or --faces rep]
# Exit status: 0 everything ran; 1 a benchmark failed (the report says which); 2 bad flags.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
targets=(memrep_bench memrep_rocksdb memrep_ceiling memrep_phased)
ndebug=none
if [[ -f build/peers/CMakeCache.txt ]] || src=$(bash scripts/rocksdb-source.sh); then
  build=build/peers
  if [[ ! -f build/peers/CMakeCache.txt ]]; then
    echo "compare: configuring build/peers (RocksDB's skip list without assertions, from $src)" >&2
    cmake -S . -B build/peers -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMREP_WERROR=ON \
      -DMEMREP_PEER_ROCKSDB_SOURCE="$src" >/dev/null
  fi
  # grep reads all of ninja's list (no -q): an early exit would fail the
  # pipeline with SIGPIPE under pipefail, and the base would silently change.
  if ninja -C build/peers -t targets all 2>/dev/null | grep '^memrep_skip_list_ndebug_plugin:' >/dev/null; then
    targets+=(memrep_skip_list_ndebug_plugin)
    ndebug=build/peers/bench/libmemrep_skip_list_ndebug.so
  fi
else
  echo "compare: no RocksDB source: the base is Debian's skip_list (with assertions)" >&2
  build=build/release
  cmake --preset release >/dev/null
fi
echo "compare: building ${targets[*]} in $build" >&2
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >&2

python=$(bash scripts/matplotlib-python.sh)
exec "$python" -B bench/report/compare.py --out build/report \
  --bench "$build/bench/memrep_bench" --plugin "$build/rocksdb/libmemrep_rocksdb.so" \
  --ceiling "$build/bench/libmemrep_ceiling.so" --phased "$build/bench/memrep_phased" \
  --ndebug-plugin "$ndebug" "$@"
