#!/usr/bin/env bash
# The main job: Debian's db_bench with RocksDB's skip_list and memrep's sorted
# hash memtable side by side, alternating, and a table of their ratios.
# Usage: bash scripts/compare.sh [db_bench_compare.py flags, e.g. --quick or --num 200000]
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target memrep_rocksdb
exec python3 bench/db_bench_compare.py --plugin build/release/rocksdb/libmemrep_rocksdb.so "$@"
