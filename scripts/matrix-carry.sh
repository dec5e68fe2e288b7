#!/usr/bin/env bash
# The matrix's many-core cells on a machine that has no build tools, no
# packages and no network (a run: docs/results/2026-11-27-matrix-16-cores-c200d40.md):
# pack the binaries here, carry the folder there, run one bounded script there.
#
#   bash scripts/matrix-carry.sh pack DIR [OLD_BENCH OLD_PLUGIN]
#       copies into DIR: memrep_bench with its peers (build/peers), memrep's
#       plugin (build/release), the no-assertion skip-list plugin (the
#       db_bench base), Debian's db_bench, a second build's memrep_bench and
#       plugin when given (its reps run as REP@start), and every shared
#       library these load except the C library's own and the C++ runtime
#       (a newer one is everywhere and reads older binaries).
#   bash scripts/matrix-carry.sh run DIR OUT [BUDGET_S]
#       on the other machine, from the repository root: the issue's cells
#       (16/100, 1M entries; readwrite and seekwhilewriting with 1 writer and
#       cores-1 readers; readrandom, seekrandom, mix8020 and concurrentfill
#       with one thread per core; db_bench readwhilewriting and
#       seekrandomwhilewriting with cores-1 readers), both builds
#       alternating, one bench/matrix/matrix.py call per workload so that a
#       build that falls off a cliff loses one cell, not the run. Stops
#       starting cells past BUDGET_S seconds (default 480); writes
#       OUT/<workload>.json (matrix.json of that call), OUT/log.
#       ENTRIES, DB_NUM, THREADS override the sizes (a rehearsal on a small
#       machine: ENTRIES=20000 DB_NUM=20000 THREADS=3); TIMEOUT (60) and
#       DB_TIMEOUT (30) bound one memrep_bench and one db_bench run; REPEATS
#       (1) repeats every cell, STAGES picks workloads (default all, "db"
#       for the db_bench pair).
# Then here: python3 bench/matrix/matrix.py --from-json OUT/*.json --out DIR
# joins them into one matrix.json, matrix.md and heat map.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,28p' "$0" >&2; exit 2; }
[[ $# -ge 2 ]] || usage

pack() {
  local dir=$1 old_bench=${2:-} old_plugin=${3:-}
  local files=(build/peers/bench/memrep_bench build/release/rocksdb/libmemrep_rocksdb.so
               build/peers/bench/libmemrep_skip_list_ndebug.so "$(command -v db_bench)")
  for f in "${files[@]}" $old_bench $old_plugin; do
    [[ -f $f ]] || { echo "matrix-carry: $f is missing (bash scripts/peers.sh;" \
                          "cmake --build --preset release --target memrep_rocksdb;" \
                          "Debian's rocksdb-tools has db_bench)" >&2; exit 1; }
  done
  rm -rf "$dir" && mkdir -p "$dir/new" "$dir/old" "$dir/lib"
  cp build/peers/bench/memrep_bench build/release/rocksdb/libmemrep_rocksdb.so \
     build/peers/bench/libmemrep_skip_list_ndebug.so "$dir/new/"
  cp "$(command -v db_bench)" "$dir/"
  [[ -n $old_bench ]] && cp "$old_bench" "$dir/old/memrep_bench"
  [[ -n $old_plugin ]] && cp "$old_plugin" "$dir/old/libmemrep_rocksdb.so"
  strip --strip-unneeded "$dir"/new/* "$dir"/old/* 2>/dev/null || true
  # Shared libraries, found by ldd, less the ones every Linux has.
  find "$dir" -type f | xargs -r ldd 2>/dev/null | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$dir/lib/"; done
  du -sh "$dir" >&2
}

run() {
  local dir out budget
  dir=$(cd "$1" && pwd); out=$2; budget=${3:-480}
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  local entries=${ENTRIES:-1000000} db_num=${DB_NUM:-1000000}
  local cores; cores=$(nproc)
  local threads=${THREADS:-$cores}
  local timeout=${TIMEOUT:-60} db_timeout=${DB_TIMEOUT:-30}
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PYTHONUNBUFFERED=1
  local missing
  missing=$(ldd "$dir"/new/* "$dir"/old/* "$dir/db_bench" 2>/dev/null |
            grep 'not found' | sort -u || true)
  [[ -z $missing ]] || echo "matrix-carry: missing libraries: $missing" >&2
  local compare=()
  [[ -x $dir/old/memrep_bench ]] &&
    compare+=(--compare-bench "$dir/old/memrep_bench" --compare-label start)
  [[ -f $dir/old/libmemrep_rocksdb.so ]] &&
    compare+=(--compare-plugin "$dir/old/libmemrep_rocksdb.so")
  local start=$SECONDS
  {
    echo "matrix-carry: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)," \
         "load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %T UTC')"
    local stages=${STAGES:-readwrite seekwhilewriting readrandom seekrandom mix8020 concurrentfill db}
    for w in $stages; do
      local left=$((budget - (SECONDS - start)))
      if ((left < 20)); then echo "matrix-carry: budget spent, $w not run"; continue; fi
      local face=(--faces rep --workloads "$w" --threads "$threads" --entries "$entries"
                  --timeout "$timeout")
      [[ $w == db ]] && face=(--faces db_bench --timeout "$db_timeout"
                              --workloads readwhilewriting,seekrandomwhilewriting
                              --db-threads $((threads - 1)) --db-num "$db_num"
                              --plugin "$dir/new/libmemrep_rocksdb.so" --db-bench "$dir/db_bench"
                              --ndebug-plugin "$dir/new/libmemrep_skip_list_ndebug.so")
      echo "matrix-carry: $w, ${left} s left, load $(cut -d' ' -f1-3 /proc/loadavg)"
      timeout --signal=KILL "$left" python3 -B bench/matrix/matrix.py "${face[@]}" \
        --bench "$dir/new/memrep_bench" "${compare[@]}" --shapes 16/100 \
        --distributions uniform --repeats "${REPEATS:-1}" --no-plot \
        --out "/tmp/matrix-carry/$w" || echo "matrix-carry: $w exited $?"
      cp "/tmp/matrix-carry/$w/matrix.json" "$out/$w.json" 2>/dev/null || true
    done
    echo "matrix-carry: done in $((SECONDS - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
  } 2>&1 | tee "$out/log"
}

case $1 in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) usage ;;
esac
