#!/usr/bin/env bash
# The benchmark report: installs what is missing (Debian packages, with
# python3-matplotlib for the plots), builds memrep_bench, memrep_nimbus_import
# and the RocksDB plugin (release preset), and runs bench/report/report.py, which
# writes benchmarks.md, benchmarks.json and img/*.png.
# Usage: bash scripts/report.sh --short [report.py flags]   # a few minutes; build/report/
#        bash scripts/report.sh --full                      # ~1 hour on 2 cores; docs/results/
#        bash scripts/report.sh --help                      # every flag
# Exit status: 0 every part ran, 1 some part failed (the report says which), 2 bad flags.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target memrep_bench memrep_nimbus_import memrep_rocksdb memrep_ceiling

python=$(bash scripts/matplotlib-python.sh)
exec "$python" -B bench/report/report.py "$@"
