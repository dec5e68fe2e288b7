#!/usr/bin/env bash
# The main job: the short benchmark report (a few minutes on 2 cores) --
# memrep_bench with every rep at the rep level, throughput vs entry count,
# Debian's db_bench with RocksDB's skip_list and memrep's sorted hash memtable
# side by side, and the Nimbus scenario (memrep_nimbus_import: one writer's
# big WriteBatches into a real RocksDB, memrep.Vector vs RocksDB's memtables)
# -- written to build/report/benchmarks.md (with plots in build/report/img/);
# ends with the targets, the db_bench ratio table and the Nimbus targets.
# Usage: bash scripts/compare.sh [db_bench_compare.py flags, e.g. --quick or --num 1000000]
# The flags go to bench/report/db_bench_compare.py and override the report's own
# (--num 200000 --repeats 1); --quick drops those (100K keys, one repetition).
set -euo pipefail
cd "$(dirname "$0")/.."

args=(--short --out build/report)
if [[ $# -gt 0 ]]; then
  args+=("--db-bench-args=$(printf '%q ' "$@")")
fi
exec bash scripts/report.sh "${args[@]}"
